import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../../core/config.ts";
import { linkBase, mailLink } from "./links.ts";

const LAMBDA = { AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x" };
const base = (publicUrl: string | undefined, env: NodeJS.ProcessEnv = {}) => linkBase("email", "Framework/EmailPasswordProvider", { publicUrl }, env);

describe("the base of mailed links", () => {
  it("is the publicUrl option, else PUBLIC_URL, without a trailing slash", () => {
    expect(base("https://api.example.com/")).toBe("https://api.example.com");
    expect(base("https://api.example.com/v1/", { PUBLIC_URL: "https://other.example.com" })).toBe("https://api.example.com/v1");
    expect(base(undefined, { PUBLIC_URL: "http://127.0.0.1:3000" })).toBe("http://127.0.0.1:3000");
    expect(base(undefined, { PUBLIC_URL: "null" })).toBeUndefined();
    expect(base(undefined, {})).toBeUndefined();
  });

  it("refuses a Lambda runtime without one, and an http one there, naming publicUrl", () => {
    expect(() => base(undefined, LAMBDA)).toThrow(ConfigurationError);
    expect(() => base(undefined, { ...LAMBDA, PUBLIC_URL: "unset" })).toThrow(/option 'publicUrl' is required in a deployed stage/);
    expect(() => base("http://api.example.com", LAMBDA)).toThrow(/option 'publicUrl' must be https/);
    expect(base(undefined, { ...LAMBDA, PUBLIC_URL: "https://api.example.com" })).toBe("https://api.example.com");
  });

  it("refuses what would let the token leave the path: a fragment, a query, credentials, another scheme", () => {
    for (const value of ["https://evil.example/#", "https://api.example.com/?x=1", "https://u:p@api.example.com", "javascript:alert(1)//", "api.example.com"]) {
      expect(() => base(value)).toThrow(/option 'publicUrl'/);
    }
  });

  it("builds no link at all without a base, rather than guessing one", () => {
    expect(() => mailLink(undefined, "email", "/auth/email/recover", "t")).toThrow(/publicUrl/);
    expect(mailLink("https://api.example.com", "email", "/auth/email/recover", "a+b/c")).toBe("https://api.example.com/auth/email/recover?token=a%2Bb%2Fc");
  });
});
