import { describe, expect, it } from "vitest";
import { referencesIn, rewriteReferences } from "./references.mjs";

describe("CloudFormation references", () => {
  it("finds Ref, both GetAtt spellings and Sub variables, but not pseudo parameters, escaped `${!...}` or a Sub's own variables", () => {
    const value = {
      a: { Ref: "Api" },
      b: { "Fn::GetAtt": ["Role", "Arn"] },
      c: { "Fn::GetAtt": "Table.StreamArn" },
      d: { "Fn::Sub": "${AWS::Region}/${Fn}/${Bucket.Arn}/${!Literal}" },
      e: { "Fn::Sub": ["${Local}-${Queue}", { Local: { Ref: "Other" } }] },
      f: { Ref: "AWS::AccountId" },
    };
    expect(referencesIn(value)).toEqual([
      { kind: "ref", target: "Api" },
      { kind: "getatt", target: "Role", attribute: "Arn" },
      { kind: "getatt", target: "Table", attribute: "StreamArn" },
      { kind: "ref", target: "Fn" },
      { kind: "getatt", target: "Bucket", attribute: "Arn" },
      { kind: "ref", target: "Queue" },
      { kind: "ref", target: "Other" },
    ]);
  });

  it("rewrites a Sub variable into another Sub variable, and leaves the rest as it was", () => {
    const value = { "Fn::Sub": "arn:${AWS::Partition}:${Fn}:${Keep}:${!Fn}" };
    const rewritten = rewriteReferences(value, (r) => (r.target === "Fn" ? { "Fn::GetAtt": ["Child", "Outputs.Fn"] } : undefined));
    expect(rewritten).toEqual({ "Fn::Sub": "arn:${AWS::Partition}:${Child.Outputs.Fn}:${Keep}:${!Fn}" });
  });
});
