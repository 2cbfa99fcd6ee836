import { describe, expect, it } from "vitest";
import { Sessions } from "../../lib/auth/sessions.ts";
import { SESSIONS, sessionShape } from "../../lib/auth/tables.ts";
import type { LoginResult } from "../../lib/auth/types.ts";
import type { Repository } from "../../lib/store/repository.ts";
import { authApp, idpLogin } from "./support.ts";

/**
 * Ending every session of a user lists them through the sessions table's `by_user` index, which
 * DynamoDB updates asynchronously. Here (DynamoDB Local, whose indexes never lag) the lag is
 * injected: the listing misses the session created last, as a real index may for a second or so.
 */
function laggingIndex(repository: Repository, missing: Set<string>): Repository {
  return new Proxy(repository, {
    get(target, property, receiver) {
      if (property === "findByField") {
        return async (field: string, values: string[]) => (await target.findByField(field, values)).filter((item) => !missing.has(String(item.id)));
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const sidOf = (login: LoginResult): string =>
  (JSON.parse(Buffer.from(login.access_token.split(".")[1] as string, "base64url").toString()) as { sid: string }).sid;
const cookieOf = (login: LoginResult): string => login.setCookie.split(";")[0] as string;

describe("ending every session of a user", () => {
  it("also ends a session the by_user index does not list yet, through every credential", async () => {
    const { app, auth } = authApp();
    const first = await idpLogin(auth);
    const user = (first.user as { uuid: string }).uuid;
    const racing = await auth.login(user, "idp");
    const kept = await auth.login(user, "idp");
    const sessions = new Sessions(laggingIndex(app.tableRepository(SESSIONS, sessionShape), new Set([sidOf(racing)])));

    const { revoked: listed } = await sessions.revokeAll(user, sidOf(kept));
    expect(listed).toBe(1); // only `first`: the index did not list `racing`, and `kept` is spared

    for (const ended of [first, racing]) {
      expect(await auth.identify({ cookies: [cookieOf(ended)] })).toEqual({});
      expect(await auth.identify({ authorization: `Bearer ${ended.access_token}`, cookies: [] })).toEqual({});
      await expect(auth.refresh(ended.refresh_token)).rejects.toMatchObject({ reason: "INVALID_REFRESH_TOKEN" });
    }
    expect(await auth.sessions.revokedAmong([sidOf(first), sidOf(racing), sidOf(kept)])).toEqual(new Set([sidOf(first), sidOf(racing)]));

    // The kept session and any session started afterwards go on.
    expect(await auth.identify({ cookies: [cookieOf(kept)] })).toMatchObject({ userId: user, via: "cookie" });
    const later = await auth.login(user, "idp");
    expect(await auth.identify({ authorization: `Bearer ${later.access_token}`, cookies: [] })).toMatchObject({ userId: user, via: "bearer" });
    expect((await auth.refresh(later.refresh_token)).access_token).toEqual(expect.any(String));

    // A second cutoff without `except` ends the kept session as well.
    await sessions.revokeAll(user);
    expect(await auth.identify({ cookies: [cookieOf(kept)] })).toEqual({});
  });
});
