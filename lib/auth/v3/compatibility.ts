import type { Application } from "../../core/application.ts";
import { log } from "../../core/log.ts";
import { DynamoRecords } from "../../store/dynamodb-records.ts";
import type { Repository } from "../../store/repository.ts";
import type { Idents, IdentRow, ProviderName } from "../idents.ts";
import { LegacyIdents } from "./legacy.ts";
import { TokenSealer } from "./tokens.ts";
import { LegacyUserRepository } from "./user-repository.ts";

/**
 * `compatibility.v3: true`: v3 idents are found (and upgraded) through the legacy-key hook (users'
 * `__password` is mapped on load by mapV3Users, which the authentication service applies when it
 * is attached). Lazy upgrades move keys in one DynamoDB transaction, so they need
 * the DynamoDB store; on the memory and file stores only the user mapping applies.
 */
export function readV3Idents(idents: Idents, identsRepository: Repository, secret: string, idpIssuers: readonly string[] = []): void {
  if (!(identsRepository instanceof DynamoRecords)) {
    log.warn("auth.v3.no_lazy_upgrade", { reason: "v3 idents are upgraded lazily on DynamoDB only; run `webda auth migrate`" });
    return;
  }
  const sealer = new TokenSealer(secret);
  const legacy = new LegacyIdents({ client: identsRepository.client, table: identsRepository.tableName, seal: (tokens) => sealer.seal(tokens), idpIssuers });
  idents.useLegacyReader({
    find: async (provider: ProviderName, providerUid: string) => (await legacy.upgradeForLogin(provider, providerUid)) as IdentRow | undefined,
    listByUser: async (user: string, found: IdentRow[]) => {
      const upgraded = (await legacy.upgradeForUser(user)) as unknown as IdentRow[];
      const seen = new Set(found.map((row) => row.uuid));
      return [...found, ...upgraded.filter((row) => !seen.has(row.uuid))];
    },
    exists: (provider: ProviderName, providerUid: string) => legacy.exists(provider, providerUid),
  });
}

/** The user half alone (a function that reads users but no idents): `__password` mapped on load. */
export function mapV3Users(app: Application): void {
  const identity = app.modelClasses().find((cls) => cls.identity);
  if (identity) app.decorateRepository(identity.name, (repository) => new LegacyUserRepository(repository));
}
