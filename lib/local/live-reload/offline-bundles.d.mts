/** Under the project: where npm start writes a rebuild request and the plugin its answer. */
export const RELOAD_DIR: string;
export const REQUEST_FILE: string;
export const DONE_FILE: string;
/** `{ "held": boolean }`: whether npm start is checking a save (no rebuild meanwhile). */
export const HOLD_FILE: string;
/** Every live-reload line, from npm start and from the plugin. */
export const RELOAD_LOG: string;

export default class LiveReloadBundles {
  constructor(serverless: unknown);
}
