import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lambdaContext } from "../support/http-events.ts";
import { answerParent, described } from "../support/tsx-child.ts";

/**
 * test/local/events.test.ts's child: a Lambda cold start of one function module in a fresh process
 * (its tables and secret read from the environment the parent gave it, as the module loads), then
 * each event handed to its handler in turn, as one warm instance would take them.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface Invocations {
  /** The function module, from the project's folder: "functions/rest.ts". */
  module: string;
  events: unknown[];
}

/** What the handler returned for an event, or what it threw. */
export type Outcome = { answer: unknown } | { error: string };

type Invoke = (event: unknown, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;

await answerParent(async ({ module, events }: Invocations): Promise<Outcome[]> => {
  const { handler } = (await import(pathToFileURL(join(ROOT, module)).href)) as { handler: Invoke };
  const outcomes: Outcome[] = [];
  for (const event of events) {
    try {
      outcomes.push({ answer: await handler(event, lambdaContext()) });
    } catch (error) {
      outcomes.push({ error: described(error) });
    }
  }
  return outcomes;
});
