import { QueryCommand, type DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { log } from "../../core/log.ts";
import { legacyIdpSub } from "../idp-keys.ts";
import { BY_LEGACY_USER } from "../tables.ts";
import { upgradeIdent, type Row } from "./field-map.ts";
import { isV4Provider, keyShape, v4Key, type Provider } from "./format.ts";
import { moveIdent, readIdent } from "./move.ts";

/**
 * The sparse index that finds a user's v3 idents (v3 rows name their user in `_user`, v4 rows in
 * `user`): only v3 rows carry `_user`, so it empties itself as the migration proceeds.
 */
export const LEGACY_USER_INDEX = BY_LEGACY_USER;

export interface LegacyIdentsOptions {
  client: DynamoDBDocumentClient;
  /** `${prefix}auth-idents`. */
  table: string;
  seal: (tokens: Record<string, unknown>) => Promise<string>;
  now?: () => Date;
  /**
   * The configured Idp issuers. A v3 Idp ident (`<sub>_idp`) names no issuer: it is upgraded to
   * the issuer-keyed form only while exactly one Idp is configured, and left alone otherwise.
   */
  idpIssuers?: readonly string[];
}

/**
 * The legacy-key hook: what the authentication service asks while `compatibility.v3` is true.
 * Each v3 row it meets is upgraded on the spot (field map + one-transaction key move), so the
 * caller only ever sees v4 rows.
 */
export class LegacyIdents {
  constructor(private readonly options: LegacyIdentsOptions) {}

  /**
   * Called when no row exists under the v4 key a login looked for. v3's own login looked up the
   * lowercased email (`<email>_email`); the address as typed is tried too. Returns the v4 row
   * (upgraded now, or by a concurrent process) or undefined when there is no v3 row either.
   */
  async upgradeForLogin(provider: Provider, providerUid: string): Promise<Row | undefined> {
    const candidates = provider === "email" ? [...new Set([providerUid.trim().toLowerCase(), providerUid.trim()])] : [providerUid];
    for (const uid of candidates) {
      const row = await readIdent(this.options.client, this.options.table, `${uid}_${provider}`);
      if (!row) continue;
      const upgraded = await this.upgrade(row);
      if (upgraded) return upgraded;
    }
    return undefined;
  }

  /**
   * The user's v3 idents, upgraded. A row whose v4 key is already taken (a letter-case variant)
   * is left untouched and skipped with a warning, as is a row whose key cannot be read.
   */
  async upgradeForUser(user: string): Promise<Row[]> {
    const rows: Row[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const result = await this.options.client.send(
        new QueryCommand({
          TableName: this.options.table,
          IndexName: LEGACY_USER_INDEX,
          KeyConditionExpression: "#u = :u",
          ExpressionAttributeNames: { "#u": "_user" },
          ExpressionAttributeValues: { ":u": user },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      rows.push(...((result.Items ?? []) as Row[]));
      start = result.LastEvaluatedKey;
    } while (start);
    const upgraded: Row[] = [];
    for (const indexed of rows) {
      // The index is eventually consistent: read the row itself before moving it.
      const row = await readIdent(this.options.client, this.options.table, String(indexed.uuid));
      const done = row && (await this.upgrade(row));
      if (done) upgraded.push(done);
    }
    return upgraded;
  }

  /** Whether a v3 row exists for this identity (read, never upgraded). */
  async exists(provider: Provider, providerUid: string): Promise<boolean> {
    const row = await readIdent(this.options.client, this.options.table, `${providerUid}_${provider}`);
    if (provider === "idp") return row !== undefined && legacyIdpSub(row) === providerUid;
    return row !== undefined;
  }

  /** Upgrades one v3 row; undefined when it is not an upgradable v3 row or its key is taken. */
  private async upgrade(row: Row): Promise<Row | undefined> {
    const shape = keyShape(row);
    const key = String(row.uuid);
    if (shape.kind !== "v3" || !isV4Provider(shape.provider)) {
      if (shape.kind === "malformed") log.warn("auth.v3.malformed_ident", { key, reason: shape.reason });
      return undefined;
    }
    const issuers = this.options.idpIssuers ?? [];
    // The same rule as the login's own upgrade: an Idp row is upgraded only if it is legacy.
    if (shape.provider === "idp" && legacyIdpSub(row) !== shape.providerUid) return undefined;
    if (shape.provider === "idp" && issuers.length !== 1) {
      log.warn("auth.v3.idp_issuer_unknown", {
        key,
        reason: "several Idp services are configured (or none): run `webda auth migrate` with only the one that issued it",
      });
      return undefined;
    }
    const issuer = shape.provider === "idp" ? issuers[0] : undefined;
    const now = (this.options.now?.() ?? new Date()).toISOString();
    const upgraded = await upgradeIdent(row, shape.provider, shape.providerUid, { seal: this.options.seal, now, ...(issuer ? { issuer } : {}) });
    const outcome = await moveIdent(this.options.client, this.options.table, key, upgraded);
    if (outcome === "moved") {
      log.info("auth.v3.ident_upgraded", { from: key, to: upgraded.uuid });
      return upgraded;
    }
    if (outcome === "conflict") {
      log.warn("auth.v3.ident_conflict", { code: "IDENT_CONFLICT", key, target: v4Key(shape.provider, shape.providerUid, issuer) });
      return undefined;
    }
    // Moved by someone else in the meantime: the v4 row is the truth.
    return readIdent(this.options.client, this.options.table, String(upgraded.uuid));
  }
}
