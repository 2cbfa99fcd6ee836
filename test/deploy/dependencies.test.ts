import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

/**
 * What package.json installs is exactly what was tested: every dependency pinned to one version
 * (a range lets `npm install` bring in a release nobody ran the suite on), the AWS SDK's packages
 * at one version unless a reason is recorded below, and package-lock.json in step with both.
 */

interface Manifest {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

interface LockEntry {
  version?: string;
  name?: string;
  dependencies?: Record<string, string>;
}

interface Lock {
  packages: Record<string, LockEntry & Manifest>;
}

/**
 * The @aws-sdk/* packages allowed another version than the rest of the SDK, each with why. A
 * record names the version it was made for: a bump fails here until the reason is looked at again.
 */
const SDK_EXCEPTIONS: Record<string, { version: string; reason: string }> = {
  "@aws-sdk/util-dynamodb": {
    version: "3.996.9",
    reason:
      "its newest release (`npm view @aws-sdk/util-dynamodb versions`, 2026-12-07): AWS publishes it on a line of its own, and @aws-sdk/lib-dynamodb 3.1162.0 asks for ^3.996.9, the same copy",
  },
};

const EXACT = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
/** `npm:<package>@<version>`, an alias (serverless is osls). */
const ALIAS = /^npm:((?:@[\w.-]+\/)?[\w.-]+)@(.+)$/;

/** The version a pin installs: itself, or an alias's version. */
function pinned(spec: string): string {
  return ALIAS.exec(spec)?.[2] ?? spec;
}

function declared(manifest: Manifest): [string, string][] {
  return [...Object.entries(manifest.dependencies ?? {}), ...Object.entries(manifest.devDependencies ?? {})];
}

/** Each dependency that is not one exact version, and each SDK package off the SDK's version without a recorded reason. */
function versionProblems(manifest: Manifest, exceptions: typeof SDK_EXCEPTIONS): string[] {
  const problems: string[] = [];
  const entries = declared(manifest);
  for (const [name, spec] of entries) {
    if (!EXACT.test(pinned(spec))) problems.push(`${name}: "${spec}" is not an exact version`);
  }
  const sdk = entries.filter(([name]) => name.startsWith("@aws-sdk/"));
  const versions = new Set(sdk.filter(([name]) => !(name in exceptions)).map(([, spec]) => spec));
  if (versions.size > 1) problems.push(`the @aws-sdk/* packages are at ${[...versions].sort().join(", ")}: one version, or a reason recorded`);
  for (const [name, { version }] of Object.entries(exceptions)) {
    const spec = sdk.find(([entry]) => entry === name)?.[1];
    if (spec === undefined) problems.push(`${name}: recorded as an exception, but not a dependency`);
    else if (spec !== version) problems.push(`${name}: at ${spec}, its reason was recorded for ${version}`);
  }
  return problems;
}

const manifest = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as Manifest;
const lock = JSON.parse(readFileSync(new URL("../../package-lock.json", import.meta.url), "utf8")) as Lock;

describe("the project's dependencies", () => {
  it("are each pinned to one version, the AWS SDK's at one version but for recorded reasons", () => {
    expect(versionProblems(manifest, SDK_EXCEPTIONS)).toEqual([]);
  });

  it("are what package-lock.json records and installs", () => {
    const root = lock.packages[""] ?? {};
    expect(root.dependencies).toEqual(manifest.dependencies);
    expect(root.devDependencies).toEqual(manifest.devDependencies);
    for (const [name, spec] of declared(manifest)) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry?.version, name).toBe(pinned(spec));
      const alias = ALIAS.exec(spec)?.[1];
      if (alias) expect(entry?.name, name).toBe(alias);
    }
  });

  it("take @aws-sdk/util-dynamodb at the version @aws-sdk/lib-dynamodb asks for: one copy in the tree", () => {
    const { version } = SDK_EXCEPTIONS["@aws-sdk/util-dynamodb"] as { version: string };
    expect(lock.packages["node_modules/@aws-sdk/lib-dynamodb"]?.dependencies?.["@aws-sdk/util-dynamodb"]).toBe(`^${version}`);
    expect(Object.keys(lock.packages).filter((path) => path.endsWith("node_modules/@aws-sdk/util-dynamodb"))).toEqual(["node_modules/@aws-sdk/util-dynamodb"]);
  });

  it("refuse a range, a tag, a URL, an SDK package off the SDK's version, and a reason recorded for another version", () => {
    const problems = versionProblems(
      {
        dependencies: {
          "@aws-sdk/client-dynamodb": "3.1162.0",
          "@aws-sdk/client-sqs": "3.1161.0",
          "@aws-sdk/util-dynamodb": "3.996.10",
          caret: "^1.2.3",
          tilde: "~1.2.3",
          tagged: "latest",
          git: "github:owner/repo#main",
          aliased: "npm:other@^2.0.0",
        },
        devDependencies: { star: "*", prerelease: "1.0.0-beta.2", alias: "npm:@scope/other@4.3.1" },
      },
      SDK_EXCEPTIONS,
    );
    expect(problems).toEqual([
      'caret: "^1.2.3" is not an exact version',
      'tilde: "~1.2.3" is not an exact version',
      'tagged: "latest" is not an exact version',
      'git: "github:owner/repo#main" is not an exact version',
      'aliased: "npm:other@^2.0.0" is not an exact version',
      'star: "*" is not an exact version',
      "the @aws-sdk/* packages are at 3.1161.0, 3.1162.0: one version, or a reason recorded",
      "@aws-sdk/util-dynamodb: at 3.996.10, its reason was recorded for 3.996.9",
    ]);
    expect(versionProblems({ dependencies: { "@aws-sdk/client-sqs": "3.1162.0" } }, SDK_EXCEPTIONS)).toEqual([
      "@aws-sdk/util-dynamodb: recorded as an exception, but not a dependency",
    ]);
  });
});
