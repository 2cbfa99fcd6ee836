import type { Application } from "../core/application.ts";
import { Context } from "../core/context.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { Item } from "../store/repository.ts";
import type { SeedData, SeedRecord, SeedUser } from "./seed-data.ts";

/** Gives a seed user the means to log in (an email ident and a password); true when it did. */
export type CredentialSetter = (app: Application, user: SeedUser) => Promise<boolean>;

export interface SeedOptions {
  credentials?: CredentialSetter;
  /** One line per model as it is done. */
  progress?: (line: string) => void;
}

export interface SeedCount {
  created: number;
  existing: number;
}

export interface SeedReport {
  /** By model name, in seeding order. */
  models: Record<string, SeedCount>;
  /** Users whose credentials were set (or confirmed) by the credential setter. */
  credentials: number;
}

function modelNamed(app: Application, name: string): ModelInfo {
  const info = app.model(name);
  if (!info) throw new Error(`seed: the application has no model '${name}'`);
  return info;
}

function identityModel(app: Application): ModelInfo {
  const info = app.models().find((m) => m.cls.identity);
  if (!info) throw new Error("seed: the application has no identity model (static identity = true) for its users");
  return info;
}

/** The stored record this seed entry would create, if a previous run created it already. */
async function findExisting(app: Application, info: ModelInfo, record: SeedRecord): Promise<Item | undefined> {
  const repository = app.repository(info);
  if (!info.generatedKey) {
    const key = Object.fromEntries(info.keyFields.map((f) => [f, record.data[f] as string | number]));
    return repository.get(key);
  }
  const [first, ...rest] = record.identifiedBy ?? [];
  if (first === undefined) throw new Error(`seed: ${info.name} is keyed by a generated uuid; give the entry 'identifiedBy' fields`);
  const candidates = await repository.findByField(first, [record.data[first] as string | number]);
  return candidates.find((item) => rest.every((f) => item[f] === record.data[f]));
}

/**
 * Creates the seed's users and records through the domain layer, each as its author: the same
 * permission checks, validation, server-set fields and lifecycle events as a client's writes.
 * Idempotent: what a previous run created (same key, or same identifying fields) is left alone.
 */
export async function seedApplication(app: Application, data: SeedData, options: SeedOptions = {}): Promise<SeedReport> {
  const report: SeedReport = { models: {}, credentials: 0 };
  const count = (model: string): SeedCount => (report.models[model] ??= { created: 0, existing: 0 });

  const users = identityModel(app);
  const repository = app.repository(users);
  for (const user of data.users) {
    const { password: _password, uuid, ...given } = user;
    // The seeder writes as the server: fields only it writes (the User's email) go as such.
    const owned = Object.fromEntries(Object.entries(given).filter(([f]) => users.ownedFields.has(f)));
    const fields = Object.fromEntries(Object.entries(given).filter(([f]) => !users.ownedFields.has(f)));
    if (await repository.get({ uuid })) count(users.name).existing++;
    else {
      await app.domain.create(new Context({ userId: uuid, requestId: `seed-${users.name}-${uuid}` }), users, fields, owned);
      count(users.name).created++;
    }
    if (options.credentials && (await options.credentials(app, user))) report.credentials++;
  }
  options.progress?.(line(users.name, count(users.name)));

  let previous: string | undefined;
  for (const record of data.records) {
    if (previous !== undefined && previous !== record.model) options.progress?.(line(previous, count(previous)));
    previous = record.model;
    const info = modelNamed(app, record.model);
    if (await findExisting(app, info, record)) {
      count(info.name).existing++;
      continue;
    }
    await app.domain.create(new Context({ userId: record.as }), info, record.data);
    count(info.name).created++;
  }
  if (previous !== undefined) options.progress?.(line(previous, count(previous)));
  return report;
}

function line(model: string, { created, existing }: SeedCount): string {
  return `  ${model}: ${created} created, ${existing} already there`;
}

/** True when no model table holds a record: a fresh embedded database, the one `npm start` seeds. */
export async function isEmpty(app: Application): Promise<boolean> {
  for (const info of app.models()) {
    const page = await app.repository(info).list({ limit: 1 });
    if (page.items.length > 0) return false;
  }
  return true;
}

export function totals(report: SeedReport): SeedCount {
  return Object.values(report.models).reduce((sum, c) => ({ created: sum.created + c.created, existing: sum.existing + c.existing }), {
    created: 0,
    existing: 0,
  });
}
