import { Service } from "../../core/service.ts";
import type { AuthProvider } from "../types.ts";
import { IdpOptionsSchema, checkIdpOptions, removedOptionProblems, type IdpOptions } from "./options.ts";

/**
 * `Framework/IdpProvider` as a function that runs none of its flows sees it: its type, checked
 * options and the description `GET /auth/providers` lists. Functions serving the Idp routes build
 * IdpProvider (./provider.ts), which adds the OpenID Connect protocol; the others build this one,
 * so openid-client's seam, the browser flow and token login stay out of their bundles.
 */
export class IdpProviderDescription extends Service<IdpOptions> implements AuthProvider {
  static override readonly type = "Framework/IdpProvider";
  static override readonly options = IdpOptionsSchema;

  static override optionProblems(given: Record<string, unknown>): string[] {
    return removedOptionProblems(given);
  }

  readonly providerName = "idp" as const;

  constructor(name: string, options: IdpOptions) {
    super(name, options);
    checkIdpOptions(name, options);
  }

  /** Listed by `GET /auth/providers`: where a browser starts the flow and where token login posts. */
  describe(): Record<string, unknown> {
    return { name: this.name, provider: "idp", url: this.options.url, issuer: this.options.issuer };
  }
}
