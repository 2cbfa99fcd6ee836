import type { Application } from "../core/application.ts";
import type { Context } from "../core/context.ts";
import type { Versioned } from "../core/domain.ts";
import type { ModelInfo } from "../core/model-info.ts";
import type { HttpRequest } from "../http/request.ts";
import { empty, json, type HttpResponse } from "../http/response.ts";
import { etagOf, notModified } from "./etag.ts";

export function record(result: Versioned, status = 200, tag = etagOf(result.version, result.data)): HttpResponse {
  return json(status, result.data, { etag: tag });
}

/** `GET` of one record: 304 when the client's If-None-Match still names its version. */
export async function readRecord(app: Application, ctx: Context, info: ModelInfo, params: Record<string, string>, request: HttpRequest): Promise<HttpResponse> {
  const result = await app.domain.get(ctx, info, params);
  const tag = etagOf(result.version, result.data);
  if (notModified(request.headers["if-none-match"], tag)) return empty(304, { etag: tag });
  return record(result, 200, tag);
}
