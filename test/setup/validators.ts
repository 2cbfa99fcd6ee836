import { installValidators } from "../../lib/core/validation.ts";
import { useRuntimeCompiler } from "../../lib/core/validation-compiler.ts";
import { validators } from "../../schema-cache/validators.mjs";

// As in the functions: the app's schemas validate with the code `npm run build` generated, so every
// test of error messages and pointers runs against it. Models that exist only in tests compile theirs.
installValidators(validators);
useRuntimeCompiler();
