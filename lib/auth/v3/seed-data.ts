import { BatchWriteCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import bcrypt from "bcryptjs";
import { isV4Provider, keyShape, v4Key } from "./format.ts";
import type { Row } from "./field-map.ts";

/**
 * A realistic v3 data set, as webda v3 left it (see format.ts): users with bcrypt `__password`,
 * email idents (mostly lowercase keys, some in the case the user typed, some case collisions),
 * Idp idents with plaintext `__tokens`, an unsupported provider, counters with and without
 * timestamps, dates as ISO strings and as epoch ms, and optionally one malformed key.
 * Deterministic for a given size, so tests can state exact expected counts.
 */
export interface V3Dataset {
  idents: Row[];
  users: Row[];
  /** What a complete migration must report, computed from the rows themselves. */
  expected: { identsMigrated: number; identConflicts: number; identsUnsupported: number; usersMigrated: number };
}

/**
 * The accounts the walk-through (docs/migrating-from-v3.md) logs in with before, during and after
 * the migration: verified, and at addresses the v4 sample does not hold (its alice, bob and
 * carol), so `npm run seed:v3` on top of a plain `npm start` collides with nothing.
 */
export const DEMO_ACCOUNTS = [
  { email: "dana@example.com", password: "dana-v3-password" },
  { email: "erin@example.com", password: "erin-v3-password" },
] as const;

/** The password of every generated (non-demo) user. */
export const BULK_PASSWORD = "correct horse battery v3";

export const MALFORMED_KEY = "orphan-row-without-provider";

function uuidFor(i: number): string {
  const hex = (i + 1).toString(16).padStart(12, "0");
  return `00000000-0000-4000-8000-${hex}`;
}

export interface DatasetOptions {
  /** Number of ident rows (exactly). */
  idents: number;
  /** Adds one row whose key is neither v3 nor v4. */
  malformed?: boolean;
  /** bcrypt cost of the generated hashes (v3's default is 10). */
  cost?: number;
}

export function v3Dataset(options: DatasetOptions): V3Dataset {
  const cost = options.cost ?? 10;
  const bulkHash = bcrypt.hashSync(BULK_PASSWORD, cost);
  const idents: Row[] = [];
  const users: Row[] = [];
  const base = Date.UTC(2023, 0, 1);
  const push = (row: Row): void => {
    if (idents.length < options.idents) idents.push(row);
  };
  for (let i = 0; idents.length < options.idents; i++) {
    const demo = DEMO_ACCOUNTS[i];
    const email = demo?.email ?? `user${i}@example.com`;
    const user = uuidFor(i);
    const created = base + i * 60_000;
    users.push({
      uuid: user,
      username: demo ? (email.split("@")[0] ?? `user${i}`) : `user${i}`,
      email,
      name: `User ${i}`,
      locale: "en",
      __password: demo ? bcrypt.hashSync(demo.password, cost) : bulkHash,
      _creationDate: new Date(created).toISOString(),
      _lastUpdate: new Date(created + 3_600_000).toISOString(),
    });
    // v3 lowercased the login, but a validation mail asked for an address as typed: 1 in 10 keys
    // keeps the user's case, and 1 in 25 users has both forms (the case collision).
    const typed = !demo && i % 10 === 3 ? `User${i}@Example.com` : email;
    const ident: Row = {
      uuid: `${typed}_email`,
      _type: "email",
      _user: user,
      email: typed,
      _creationDate: new Date(created).toISOString(),
      _lastUsed: new Date(created + 86_400_000).toISOString(),
    };
    if (demo || i % 3 !== 0) ident._validation = i % 6 === 1 ? created + 1000 : new Date(created + 1000).toISOString();
    if (i % 7 === 1) Object.assign(ident, { _failedLogin: 3, _lastFailedLogin: new Date(created + 7_200_000).toISOString() });
    if (i % 7 === 2) Object.assign(ident, { _failedLogin: 5 });
    if (i % 7 === 3) Object.assign(ident, { _failedLogin: 2, _lastFailedLogin: created + 7_200_000 });
    if (i % 5 === 0) ident._lastValidationEmail = created + 500;
    push(ident);
    if (i % 25 === 7)
      push({ uuid: `${email.toUpperCase()}_email`, _type: "email", _user: user, email: email.toUpperCase(), _lastValidationEmail: created + 900 });
    if (i % 4 === 0) {
      push({
        uuid: `idp-sub-${i}_idp`,
        _type: "idp",
        _user: user,
        email,
        provider: "idp",
        _validation: new Date(created).toISOString(),
        __tokens: { access_token: `at-${i}`, refresh_token: `rt-${i}`, id_token: `it-${i}`, expires_at: created + 3_600_000 },
        __profile: { sub: `idp-sub-${i}`, name: `User ${i}`, email },
      });
    }
    if (i % 50 === 11) push({ uuid: `gh${i}_github`, _type: "github", _user: user, __tokens: { access_token: `gh-${i}` } });
  }
  if (options.malformed) idents.push({ uuid: MALFORMED_KEY, _user: uuidFor(0), note: "left by a hand-written import" });
  return { idents, users, expected: expectedCounts(idents, users) };
}

function expectedCounts(idents: Row[], users: Row[]): V3Dataset["expected"] {
  const targets = new Set<string>();
  let candidates = 0;
  let unsupported = 0;
  for (const row of idents) {
    const shape = keyShape(row);
    if (shape.kind !== "v3") continue;
    if (!isV4Provider(shape.provider)) {
      unsupported++;
      continue;
    }
    candidates++;
    targets.add(v4Key(shape.provider, shape.providerUid));
  }
  return { identsMigrated: targets.size, identConflicts: candidates - targets.size, identsUnsupported: unsupported, usersMigrated: users.length };
}

/** BatchWriteItem, 25 rows a call, a few calls in flight, unprocessed items retried. */
export async function writeRows(client: DynamoDBDocumentClient, table: string, rows: Row[], concurrency = 8): Promise<void> {
  const chunks: Row[][] = [];
  for (let i = 0; i < rows.length; i += 25) chunks.push(rows.slice(i, i + 25));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      let requests = (chunks[next++] as Row[]).map((Item) => ({ PutRequest: { Item } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 20 * 2 ** attempt)));
        const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: requests } }));
        requests = (result.UnprocessedItems?.[table] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}
