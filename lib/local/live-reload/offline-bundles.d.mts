/** Under the project: where npm start writes a rebuild request and the plugin its answer. */
export const RELOAD_DIR: string;
export const REQUEST_FILE: string;
export const DONE_FILE: string;

export default class LiveReloadBundles {
  constructor(serverless: unknown);
}
