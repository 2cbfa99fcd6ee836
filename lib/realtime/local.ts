import type { Application } from "../core/application.ts";
import { createRealtime, type Realtime, type RealtimeParts } from "./realtime.ts";

/** The realtime face, built once per Lambda instance; a failed build is retried by the next event. */
export function lazyRealtime(app: Application, parts: RealtimeParts = {}): () => Promise<Realtime> {
  let ready: Promise<Realtime> | undefined;
  return () =>
    (ready ??= Promise.resolve()
      .then(() => createRealtime(app, parts))
      .catch((error: unknown) => {
        ready = undefined;
        throw error;
      }));
}
