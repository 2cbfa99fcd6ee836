import { Service } from "../../core/service.ts";
import type { AuthProvider } from "../types.ts";
import { linkBase } from "./links.ts";
import { checkCost, checkRedirects, emailProviderOptions, type EmailProviderOptions } from "./options.ts";

/**
 * `Framework/EmailPasswordProvider` as a function that runs none of its flows sees it: its type,
 * complete options and the description `GET /auth/providers` lists. Functions serving the
 * provider's own routes build EmailPasswordProvider (./provider.ts), which adds the flows; the
 * others build this one, so the flows, mail templates and their code stay out of their bundles.
 */
export class EmailPasswordProviderDescription extends Service<EmailProviderOptions> implements AuthProvider {
  static override readonly type = "Framework/EmailPasswordProvider";
  static override readonly options = emailProviderOptions;
  readonly providerName = "email" as const;

  constructor(name: string, options: EmailProviderOptions) {
    super(name, options);
    checkRedirects(name, EmailPasswordProviderDescription.type, options);
    checkCost(name, EmailPasswordProviderDescription.type, options.password.cost);
    linkBase(name, EmailPasswordProviderDescription.type, options);
  }

  describe(): Record<string, unknown> {
    return { name: this.name, provider: "email", url: this.options.url, verification: this.options.verification, registration: this.options.registration };
  }

  linkingPolicy(): { linking: "verified" | "never"; trustEmailVerification: boolean } {
    return { linking: this.options.linking, trustEmailVerification: this.options.trustEmailVerification };
  }
}
