import { OWN_SERVICE } from "../setup/file-lists.ts";
import { chainFiles } from "../setup/service-chain.ts";

// `npm test` runs the files that start an `npm start` of their own from here (vitest.config.ts,
// SERVICE_CHAIN=1), back to back in one worker while the other works through the unit files.
chainFiles(OWN_SERVICE);
