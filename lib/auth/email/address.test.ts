import { describe, expect, it } from "vitest";
import { ValidationError } from "../../core/errors.ts";
import { canonicalEmail } from "./address.ts";

describe("canonicalEmail", () => {
  it("trims and lowercases a plain address", () => {
    expect(canonicalEmail("  Victim.Name+tag@Mail.Example.COM ")).toBe("victim.name+tag@mail.example.com");
    expect(canonicalEmail("victim@example.com\n")).toBe("victim@example.com");
    expect(canonicalEmail("o'brien@xn--bcher-kva.example")).toBe("o'brien@xn--bcher-kva.example");
  });

  // Each of these is either another spelling of victim@example.com or no plain mailbox at all.
  it.each([
    "victim@example.com.",
    '"victim"@example.com',
    '"vic tim"@example.com',
    "victim@[127.0.0.1]",
    "victim@[IPv6:::1]",
    "victim@127.0.0.1",
    "victim(comment)@example.com",
    "victim@example.com(comment)",
    ".victim@example.com",
    "victim.@example.com",
    "vic..tim@example.com",
    "victim@@example.com",
    "victim@example@example.com",
    "victim@localhost",
    "victim@-example.com",
    "victim@example-.com",
    "victim@exa_mple.com",
    "victim@example..com",
    "vïctim@example.com",
    "victim@exämple.com",
    "victim @example.com",
    `${"a".repeat(65)}@example.com`,
    `a@${"b".repeat(64)}.com`,
    `a@${"b.".repeat(126)}com`,
    "@example.com",
    "victim@",
    "",
  ])("refuses %j with a 400 naming /email", (raw) => {
    let caught: unknown;
    try {
      canonicalEmail(raw);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    expect((caught as ValidationError).status).toBe(400);
    expect((caught as ValidationError).errors).toEqual([{ path: "/email", message: expect.any(String) }]);
  });
});
