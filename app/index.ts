import { checkServiceOptions } from "../lib/index.ts";
import { createApp } from "./definition.ts";

export { createApp, definition } from "./definition.ts";

// Everything that runs from source (`npm start`, the CLI and so the check `serverless package`
// runs, the seeders) refuses an invalid configuration before doing anything else, naming the
// service, the option and the problem. Lambda functions build the application from
// ./definition.ts without this check: it ran when they were packaged.
checkServiceOptions();

export const app = createApp();
