#!/usr/bin/env node
// `npx webda <command>` from a clone: the CLI is TypeScript run by tsx (a dev dependency that
// `npm ci` installs), so there is no build step between a checkout and the command.
import { register } from "tsx/esm/api";

register();
await import("../lib/cli/main.ts");
