import { serviceOptionsCheck, type Application, type ApplicationDefinition, type ApplicationParts } from "../lib/index.ts";
import { createApp as createDefinedApp } from "./definition.ts";

export { definition } from "./definition.ts";
// What `npm start` and `npm run seed` write (package.json `webda.app` names this module).
export { seed } from "./seed/data.ts";

/**
 * The sample as everything that runs from source builds it (`npm start`, the CLI and so the check
 * `serverless package` runs, the seeders): it refuses an invalid configuration before doing
 * anything else, naming the service, the option and the problem. What validates or lists passes
 * those parts too (the tools compile schemas at run time). Lambda functions compose the
 * application from ./definition.ts without the check: it ran when they were packaged.
 */
export function createApp(parts: ApplicationParts = {}, overrides: Partial<ApplicationDefinition> = {}): Application {
  return createDefinedApp({ checkOptions: serviceOptionsCheck(), ...parts }, overrides);
}

export const app = createApp();
