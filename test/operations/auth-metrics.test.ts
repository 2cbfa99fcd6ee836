import { describe, expect, it } from "vitest";
import { runInvocation } from "../../lib/core/invocation.ts";
import { metricsLine } from "../../lib/core/metrics.ts";
import { authApp, idpLogin } from "../auth/support.ts";
import { parseEmf } from "../support/emf.ts";

/** The events an invocation counted so far, as its metric line would publish them. */
function counted(): Record<string, unknown> {
  return parseEmf(metricsLine({ service: "auth", latencyMs: 1 }, "blog/test"));
}

describe("authentication events in the metrics", () => {
  it("counts a login, and a refresh token reused after the interval once", async () => {
    const { auth } = authApp({ authentication: { type: "Framework/Authentication", refresh: { reuseInterval: 0 } } });
    const login = await runInvocation(async () => {
      const login = await idpLogin(auth);
      expect(counted()).toMatchObject({ Logins: 1 });
      expect(counted()).not.toHaveProperty("RefreshTokenReuse");
      return login;
    });

    await auth.refresh(login.refresh_token);
    await new Promise((r) => setTimeout(r, 5));
    await runInvocation(async () => {
      await expect(auth.refresh(login.refresh_token)).rejects.toMatchObject({ reason: "REFRESH_TOKEN_REUSED" });
      expect(counted()).toMatchObject({ RefreshTokenReuse: 1 });
      expect(counted()).not.toHaveProperty("Logins");
    });
  });
});
