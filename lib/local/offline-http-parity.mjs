// @ts-check
// A local serverless plugin for `serverless offline` only: requests reach our handlers as API
// Gateway would hand them over.
//
// serverless-offline fills in `content-type: application/json` when a request with a body names
// no media type (LambdaProxyIntegrationEventV2); API Gateway passes the headers as sent, and our
// handlers answer such a body 415. So offline would accept what a deployed stage refuses. Before
// hapi sees a request with a body and no Content-Type, the patch (offline-patches.mjs) names the
// body for what it is to hapi (opaque bytes, which it hands on untouched), and the handler answers
// 415 as in AWS.
//
// Plain JS (checked by tsc through its JSDoc types) because the Serverless CLI loads plugins itself.
import { keepMissingContentTypes } from "./offline-patches.mjs";
/** @import { ServerlessPlugin } from "../core/serverless-host.ts" */

/** @implements {ServerlessPlugin} */
export default class OfflineHttpParity {
  constructor() {
    this.hooks = { "before:offline:start:init": () => keepMissingContentTypes(), "before:offline:start": () => keepMissingContentTypes() };
  }
}
