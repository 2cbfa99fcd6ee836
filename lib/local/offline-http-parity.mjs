// A local serverless plugin for `serverless offline` only: requests reach our handlers as API
// Gateway would hand them over.
//
// serverless-offline fills in `content-type: application/json` when a request with a body names
// no media type (LambdaProxyIntegrationEventV2); API Gateway passes the headers as sent, and our
// handlers answer such a body 415. So offline would accept what a deployed stage refuses. Before
// hapi sees a request with a body and no Content-Type, this names the body for what it is to
// hapi (opaque bytes, which it hands on untouched), and the handler answers 415 as in AWS.
//
// Plain JS because the Serverless CLI loads plugins itself.
import { Server } from "node:http";

const PATCHED = Symbol.for("modelrest.offline-http-parity");

function hasBody(headers) {
  const length = headers["content-length"];
  return (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined;
}

export function keepMissingContentTypes(ServerClass = Server) {
  const emit = ServerClass.prototype.emit;
  if (emit[PATCHED]) return;
  function patched(event, request, ...rest) {
    if (event === "request" && request?.headers && request.headers["content-type"] === undefined && hasBody(request.headers)) {
      // hapi reads `headers`; serverless-offline builds the event from `rawHeaders`.
      request.headers["content-type"] = "application/octet-stream";
      request.rawHeaders.push("content-type", "application/octet-stream");
    }
    return emit.call(this, event, request, ...rest);
  }
  patched[PATCHED] = true;
  ServerClass.prototype.emit = patched;
}

export default class OfflineHttpParity {
  constructor() {
    this.hooks = { "before:offline:start:init": () => keepMissingContentTypes(), "before:offline:start": () => keepMissingContentTypes() };
  }
}
