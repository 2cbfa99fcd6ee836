/** The serverless `httpApi.cors` shape (what schema-cache/http-api.json holds). */
export interface HttpApiCors {
  allowedOrigins?: string[];
  allowedHeaders?: string[];
  allowedMethods?: string[];
  exposedResponseHeaders?: string[];
  allowCredentials?: boolean;
  maxAge?: number;
}

export interface CorsRequest {
  method: string;
  origin: string | undefined;
  /** The `Access-Control-Request-Method` header: present on a preflight. */
  requestMethod: string | undefined;
}

export function gatewayCors(cors: HttpApiCors | undefined, request: CorsRequest): { preflight: boolean; headers: Record<string, string> };

export default class OfflineCorsPlugin {
  constructor(serverless: unknown, options?: Record<string, unknown>);
}
