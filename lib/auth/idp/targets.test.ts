import { describe, expect, it } from "vitest";
import { allowedPrefixes, authorizedTarget, failureTarget } from "./targets.ts";

const prefixes = allowedPrefixes(["https://app.example/allowed", "https://other.example/"]);

describe("authorized_uris", () => {
  it.each([
    ["https://app.example/allowed", "https://app.example/allowed"],
    ["https://app.example/allowed/deep/page?x=1#top", "https://app.example/allowed/deep/page?x=1#top"],
    // Normalised before comparing, and the browser is sent to the normalised form.
    ["HTTPS://APP.example:443/allowed/x", "https://app.example/allowed/x"],
    ["https://app.example/allowed/./x/../y", "https://app.example/allowed/y"],
    ["https://app.example\\allowed\\x", "https://app.example/allowed/x"],
    ["https://other.example/anything", "https://other.example/anything"],
  ])("allows %s as %s", (target, expected) => {
    expect(authorizedTarget(target, prefixes)).toBe(expected);
  });

  it.each([
    "//evil.example",
    "//evil.example/allowed",
    "/allowed",
    "https://evil.example/allowed",
    "https://app.example.evil.example/allowed",
    "https://app.example@evil.example/allowed",
    "https://user:pass@app.example/allowed",
    "https://app.example/allowed/../admin",
    "https://app.example/allowed/%2e%2e/admin",
    "https://app.example/allowed/.%2E/admin",
    "https://app.example/allowed/%2F..%2Fadmin",
    "https://app.example/allowed%2F..%2Fadmin",
    "https://app.example/allowed/%252e%252e/admin",
    "https://app.example/allowed/%5C..%5Cadmin",
    "https://app.example/allowedx",
    "https:\\\\evil.example/allowed",
    "https:/\\evil.example/allowed",
    "https://app.example\\@evil.example/allowed",
    "/\\evil.example",
    "\\\\evil.example",
    "https://evil.example%2F@app.example/allowed",
    "https://app.example%2eevil.example/allowed",
    "http://app.example/allowed",
    "https://app.example:8443/allowed",
    "javascript:alert(1)//https://app.example/allowed",
    "data:text/html,<script>alert(1)</script>",
    " https://app.example/allowed",
    "https://app.example/allowed\n.evil.example",
    "https://app.example/allowed\t",
    `https://app.example/allowed/${"a".repeat(2100)}`,
    "",
  ])("refuses %s", (target) => {
    expect(authorizedTarget(target, prefixes)).toBeUndefined();
  });

  it("refuses everything when no authorized_uris are configured", () => {
    expect(authorizedTarget("https://app.example/allowed", [])).toBeUndefined();
    expect(authorizedTarget(undefined, prefixes)).toBeUndefined();
  });

  it("adds the reason to the failure page's own query", () => {
    expect(failureTarget("https://app.example/login?from=idp", "STATE_USED")).toBe("https://app.example/login?from=idp&reason=STATE_USED");
    expect(failureTarget("https://app.example/login?reason=x", "ACCOUNT_EXISTS")).toBe("https://app.example/login?reason=ACCOUNT_EXISTS");
  });
});
