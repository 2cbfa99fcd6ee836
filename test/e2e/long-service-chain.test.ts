import { LONG_SERVICE } from "../setup/file-lists.ts";
import { chainFiles } from "../setup/service-chain.ts";

// `npm run test:long` runs its files that start `npm start` on the fixed ports from here
// (vitest.config.ts, SERVICE_CHAIN=1), back to back in one worker while the other works through
// the rest of the long files, none of which takes those ports.
chainFiles(LONG_SERVICE);
