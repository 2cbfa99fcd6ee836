import { describe, expect, it } from "vitest";
import { chooseCoding } from "./encoding.ts";

describe("chooseCoding", () => {
  it("prefers brotli, then gzip, as browsers offer them", () => {
    expect(chooseCoding("gzip, deflate, br, zstd")).toBe("br");
    expect(chooseCoding("gzip, deflate")).toBe("gzip");
    expect(chooseCoding("*")).toBe("br");
  });

  it("follows the client's q-values and refusals", () => {
    expect(chooseCoding("br;q=0.5, gzip")).toBe("gzip");
    expect(chooseCoding("br;q=0, gzip;q=0")).toBe("identity");
    expect(chooseCoding("*;q=0.2, br;q=0")).toBe("gzip");
  });

  it("answers uncompressed without a header or with only unknown codings", () => {
    expect(chooseCoding(undefined)).toBe("identity");
    expect(chooseCoding("")).toBe("identity");
    expect(chooseCoding("deflate, compress")).toBe("identity");
    expect(chooseCoding("br;q=banana")).toBe("identity");
  });
});
