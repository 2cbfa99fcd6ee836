#!/usr/bin/env node
// `npx webda <command>` from a clone: the CLI is TypeScript run by tsx (a dev dependency that
// `npm ci` installs), so there is no build step between a checkout and the command.
import { register } from "tsx/esm/api";

// Node 20.19 is our local floor (Lambda runs 22): the SDK's reminder about 2027 is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
register();
await import("../lib/cli/main.ts");
