import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";

/** What a fault rule throws, as the SDK's own errors look (name, $fault, HTTP status). */
export function sdkError(name: string, status: number, message = name): Error {
  return Object.assign(new Error(message), { name, $fault: status >= 500 ? "server" : "client", $metadata: { httpStatusCode: status, attempts: 1 } });
}

export interface FaultRule {
  /** The command this rule targets (`PutCommand`, `UpdateCommand`, ...), or every command. */
  command?: string;
  /** How many matching attempts fail; Infinity for a lasting fault. */
  times: number;
  error: () => Error;
}

/**
 * Fault injection at the AWS client level: a middleware in the `deserialize` step, which runs
 * inside the SDK's retry loop, so each injected failure is one attempt the SDK sees and may
 * retry with its own backoff. `attempts` counts every request that reached the wire, per command.
 */
export function injectFaults(client: DynamoDBDocumentClient) {
  const rules: FaultRule[] = [];
  const attempts: Record<string, number> = {};
  const injected: Record<string, number> = {};
  // The document client's commands wrap the low-level ones: the low-level stack sees every attempt.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? "unknown";
      attempts[name] = (attempts[name] ?? 0) + 1;
      const rule = rules.find((r) => r.times > 0 && (r.command === undefined || name === r.command));
      if (rule) {
        rule.times--;
        injected[name] = (injected[name] ?? 0) + 1;
        throw rule.error();
      }
      return next(args);
    },
    { step: "deserialize", name: "injectFaults" },
  );
  return {
    attempts,
    injected,
    add(rule: FaultRule): void {
      rules.push(rule);
    },
    reset(): void {
      rules.length = 0;
      for (const k of Object.keys(attempts)) delete attempts[k];
      for (const k of Object.keys(injected)) delete injected[k];
    },
  };
}
