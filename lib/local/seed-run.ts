import type { DynamoDBClientConfig } from "@aws-sdk/client-dynamodb";
import type { Application } from "../core/application.ts";
import { isEmpty, seedApplication, totals, type CredentialSetter, type SeedReport } from "./seed.ts";
import type { SeedData } from "./seed-data.ts";
import { seedStore } from "./seed-store.ts";

export interface SeedRun {
  /** A fresh application instance (its store is chosen here). */
  createApp: () => Application;
  data: SeedData;
  credentials: CredentialSetter | undefined;
  endpoint: string | undefined;
  tablePrefix: string;
  client: DynamoDBClientConfig;
  log: (line: string) => void;
  /** Seed only a database whose model tables are all empty (what `npm start` does). */
  onlyIfEmpty?: boolean;
}

/** Seeds one database and logs a summary; undefined when `onlyIfEmpty` found data and did nothing. */
export async function runSeed(run: SeedRun): Promise<SeedReport | undefined> {
  const { store, close } = seedStore(run.endpoint, run.tablePrefix, run.client);
  try {
    const app = run.createApp().useStore(store);
    if (run.onlyIfEmpty && !(await isEmpty(app))) {
      run.log("seed: the database already holds records; not seeding (npm run seed adds what is missing)");
      return undefined;
    }
    run.log(`seed: the sample data, through the domain layer, into ${run.tablePrefix}* at ${run.endpoint ?? "the region's DynamoDB"}`);
    const report = await seedApplication(app, run.data, { credentials: run.credentials, progress: run.log });
    const { created, existing } = totals(report);
    const logins =
      run.credentials && report.credentials > 0 ? `, ${report.credentials} users can log in` : ", no log-in (the application has no email/password provider)";
    run.log(`seed: ${created} records created, ${existing} already there${logins}`);
    return report;
  } finally {
    close();
  }
}
