import { describe, expect, it } from "vitest";
import { etagOf, expectedVersion, notModified } from "./etag.ts";

describe("etagOf", () => {
  it("gives one representation one tag whatever the order of its keys (a create's answer and DynamoDB's read)", () => {
    const created = etagOf(3, { slug: "a", title: "T", tags: [{ b: 1, a: 2 }], createdAt: "2026-01-01T00:00:00.000Z" });
    const read = etagOf(3, { createdAt: "2026-01-01T00:00:00.000Z", tags: [{ a: 2, b: 1 }], title: "T", slug: "a" });
    expect(read).toBe(created);
    expect(notModified(created, read)).toBe(true);
  });

  it("tells versions and views apart, and writes still pin the version alone", () => {
    const owner = etagOf(3, { uuid: "u", email: "a@example.com" });
    expect(etagOf(3, { uuid: "u" })).not.toBe(owner);
    expect(etagOf(4, { uuid: "u", email: "a@example.com" })).not.toBe(owner);
    expect(expectedVersion(owner)).toBe(3);
  });
});
