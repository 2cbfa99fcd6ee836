import { publicKeySet, generateSigningJwk } from "../../lib/auth/keys.ts";
import type { Figures, Measured } from "../lib/figures.ts";
import type { RunOptions } from "../lib/options.ts";
import { progress } from "../lib/progress.ts";
import { summarise } from "../lib/stats.ts";
import { startSsmStub } from "../../test/support/ssm-stub.ts";
import { measureCold, prepareCold } from "./section.ts";
import { coldStartCore } from "./spawn.ts";
import { startStubDynamoDb } from "./stub-dynamodb.ts";
import { REST_ALL, type Variant } from "./variants.ts";

const PARAMETER = "/blog/bench/app-secret";

/**
 * A deployed function reads its secrets from SSM Parameter Store once per cold start, before the
 * application is built (lib/core/secrets/load.ts). Both variants run the REST catch-all function
 * as a Lambda runtime (AWS_EXECUTION_ENV set, verifying with the public key set) answering the same
 * record read, which needs no secret: one is given APP_SECRET's parameter name and makes the signed
 * GetParameters call to a loopback SSM stub, the other is given none and calls nothing.
 */
function lambdaVariants(ssmEndpoint: string): { without: Variant; withSecrets: Variant } {
  const lambda = {
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_SESSION_TOKEN: "bench",
    PUBLIC_URL: "https://api.example.com",
    AUTH_PUBLIC_KEYS: JSON.stringify(publicKeySet(JSON.stringify(generateSigningJwk()))),
    // A Lambda runtime never takes a value from here (the common environment sets APP_SECRET).
    APP_SECRET: "",
  };
  return {
    without: { ...REST_ALL, name: "REST catch-all as a Lambda runtime, no secret parameter", env: lambda },
    withSecrets: {
      ...REST_ALL,
      name: "REST catch-all as a Lambda runtime, APP_SECRET from SSM (loopback stub)",
      env: { ...lambda, APP_SECRET_PARAMETER: PARAMETER, AWS_ENDPOINT_URL_SSM: ssmEndpoint },
    },
  };
}

/** `npm run bench -- --only=cold-secrets`: the secret store's cold-start cost, against the same function without it. */
export async function coldSecretsSection(figures: Figures, options: RunOptions): Promise<void> {
  const ssm = await startSsmStub({ [PARAMETER]: { value: "s".repeat(48) } });
  const { without, withSecrets } = lambdaVariants(ssm.url);
  progress("cold start, secrets: bundling the REST catch-all function");
  const prepared = await prepareCold(options.outDir, [without, withSecrets]);
  const dynamodb = await startStubDynamoDb();
  const cpu = await coldStartCore();
  try {
    const totals = await measureCold(prepared, options.coldRuns, dynamodb.endpoint, options.seed, cpu);
    const measured = (v: Variant, name = v.name): Measured => ({ name, summary: summarise(totals.get(v) ?? []), samples: totals.get(v) ?? [] });
    const ours = measured(withSecrets);
    const floor = measured(without, "no parameter");
    // One call per cold start, the warm-up round's included: what the loader promises.
    const starts = options.coldRuns + 1;
    figures.add({
      section: "cold start",
      measure: withSecrets.name,
      unit: "ms",
      higherIsBetter: false,
      ours,
      floor,
      note: `one signed GetParameters call with decryption per cold start (${ssm.requests.length} calls for ${starts} cold starts); difference of medians against the same function without it: ${(ours.summary.median - floor.summary.median).toFixed(1)} ms. The stub answers at once: SSM's own latency in AWS comes on top`,
    });
    if (ssm.requests.length !== starts) throw new Error(`expected ${starts} GetParameters calls, the stub saw ${ssm.requests.length}`);
  } finally {
    await dynamodb.close();
    await ssm.close();
  }
}
