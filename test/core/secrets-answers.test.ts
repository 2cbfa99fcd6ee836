import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startSsmStub, type SsmStub } from "../support/ssm-stub.ts";

/**
 * What the secret loader (lib/core/secrets/load.ts, ssm-call.ts) does with answers SSM never
 * sends, from a real loopback server answering them (fault injection through its `answer` hook):
 * wrong shapes, values that are not strings, bodies that are not JSON or far too long, errors
 * carrying text of their own, and a region that is not one. Each fails the cold start with a
 * ConfigurationError that names the parameter and never repeats the body.
 */

const PARAMETER = "/blog/prod/app-secret";
const NAMED = `'${PARAMETER}' (APP_SECRET_PARAMETER)`;
const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

let stub: SsmStub;

beforeAll(async () => {
  stub = await startSsmStub({ [PARAMETER]: { value: "app-secret-value-".repeat(4) } });
});
afterAll(() => stub.close());

beforeEach(() => {
  stub.requests.length = 0;
  stub.answer = undefined;
});

function lambdaEnv(overrides: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    AWS_EXECUTION_ENV: "AWS_Lambda_nodejs22.x",
    AWS_REGION: "us-east-1",
    AWS_ENDPOINT_URL_SSM: stub.url,
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    APP_SECRET_PARAMETER: PARAMETER,
    ...overrides,
  };
}

/** The error a fresh cold start fails with; it must be a ConfigurationError (never a TypeError). */
async function loadError(env: NodeJS.ProcessEnv = lambdaEnv()): Promise<Error> {
  const { loadSecrets } = await import("../../lib/core/secrets/load.ts");
  const { ConfigurationError } = await import("../../lib/core/config.ts");
  const error = await loadSecrets(env).then(
    () => new Error("loadSecrets resolved"),
    (thrown: unknown) => thrown as Error,
  );
  expect(error, error.stack).toBeInstanceOf(ConfigurationError);
  return error;
}

const answering =
  (status: number, body: string, headers: Record<string, string> = {}) =>
  (res: ServerResponse) => {
    res.writeHead(status, { "content-type": "application/x-amz-json-1.1", ...headers });
    res.end(body);
  };

describe("the secret loader, given answers SSM never sends", () => {
  it("refuses null, a list or a wrong shape with an error naming the parameter, not a TypeError", async () => {
    const bodies = [
      "null",
      "[]",
      '"a string"',
      "42",
      '{"Parameters": "none"}',
      '{"Parameters": [null]}',
      '{"Parameters": [["x"]]}',
      '{"Parameters": [], "InvalidParameters": ["/not/asked"]}',
      '{"Parameters": [], "InvalidParameters": [42]}',
      '{"Parameters": [], "InvalidParameters": {"0": "/blog/prod/app-secret"}}',
    ];
    for (const body of bodies) {
      stub.answer = answering(200, body);
      const error = await loadError();
      expect(error.message, body).toContain(NAMED);
      expect(error.message, body).toMatch(/failed: the answer/);
    }
  });

  it("refuses a value that is not a string, naming the parameter and never quoting the value", async () => {
    for (const value of [12345678, { nested: "LEAKED-VALUE" }, ["LEAKED-VALUE"], true]) {
      stub.answer = answering(200, JSON.stringify({ Parameters: [{ Name: PARAMETER, Type: "SecureString", Value: value }], InvalidParameters: [] }));
      const error = await loadError();
      expect(error.message).toBe(`SSM parameter ${NAMED} came back with a value that is not a string`);
    }
    // An odd type is named only when it is a plain word.
    stub.answer = answering(200, JSON.stringify({ Parameters: [{ Name: PARAMETER, Type: { evil: "LEAKED" }, Value: "v" }] }));
    expect((await loadError()).message).toBe(`SSM parameter ${NAMED} must be a SecureString, not an unknown type`);
  });

  it("never copies a body or SSM's own message into the error: a proxy's page, a JSON error, a 200 that is not JSON", async () => {
    stub.answer = answering(502, "<html><body>PROXY-PAGE with /blog/prod/app-secret</body></html>", { "content-type": "text/html" });
    const proxied = await loadError();
    expect(proxied.message).toBe(`Reading SSM parameter ${NAMED} failed, HTTP 502: HTTP 502`);
    // A 5xx is retried: the attempts were all made.
    expect(stub.requests).toHaveLength(3);

    stub.requests.length = 0;
    stub.answer = answering(400, JSON.stringify({ __type: "com.amazonaws.ssm#ValidationException", message: "SSM-OWN-MESSAGE: value 'LEAKED'" }));
    const refused = await loadError();
    expect(refused.message).toBe(`Reading SSM parameter ${NAMED} failed, ValidationException: HTTP 400`);
    expect(stub.requests).toHaveLength(1);

    stub.answer = answering(400, JSON.stringify({ __type: "<script>LEAKED</script>", Message: "LEAKED" }));
    expect((await loadError()).message).toBe(`Reading SSM parameter ${NAMED} failed, HTTP 400: HTTP 400`);

    stub.answer = answering(200, "<html>LEAKED-PAGE</html>");
    expect((await loadError()).message).toBe(`Reading SSM parameter ${NAMED} failed, MalformedAnswer: the answer is not JSON`);
  });

  it("drops a 200 MB answer as soon as it passes the limit, never reading it whole", async () => {
    const { SSM_MAX_ANSWER_BYTES } = await import("../../lib/core/secrets/ssm-call.ts");
    const TOTAL = 200 * 1024 * 1024;
    for (const declared of [false, true]) {
      stub.requests.length = 0;
      let written = 0;
      let closed: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => (closed = resolve));
      stub.answer = (res) => {
        res.writeHead(200, { "content-type": "application/x-amz-json-1.1", ...(declared ? { "content-length": String(TOTAL) } : {}) });
        const chunk = Buffer.alloc(64 * 1024, "a");
        let open = true;
        res.on("close", () => {
          open = false;
          closed();
        });
        // As fast as the client reads: a body it stops reading stops here.
        const pump = () => {
          while (open && written < TOTAL) {
            written += chunk.length;
            if (!res.write(chunk)) return void res.once("drain", pump);
          }
          if (open) res.end();
        };
        pump();
      };
      const error = await loadError();
      expect(error.message).toBe(`Reading SSM parameter ${NAMED} failed, AnswerTooLarge: an answer of more than ${SSM_MAX_ANSWER_BYTES} bytes`);
      await ended;
      // What the server could hand the socket before the client hung up: its buffers, never 200 MB.
      expect(written, declared ? "with a Content-Length" : "chunked").toBeLessThan(32 * 1024 * 1024);
      // Not retried: a long answer is not a transient failure.
      expect(stub.requests).toHaveLength(1);
    }
  });

  it("checks AWS_REGION before it builds the endpoint: a missing or malformed region calls nothing", async () => {
    const regions: (string | undefined)[] = [
      undefined,
      "",
      "us-east-1.attacker.example",
      "attacker.example/",
      "US-EAST-1",
      "us-east-1\n",
      "us east 1",
      "us-east-1:443",
    ];
    for (const region of regions) {
      const error = await loadError(lambdaEnv({ AWS_REGION: region, AWS_ENDPOINT_URL_SSM: undefined }));
      expect(error.message, JSON.stringify(region)).toMatch(/^AWS_REGION (is not set|is not an AWS region name)/);
      // Even with the endpoint given, the region is checked: it is the signature's scope too.
      await loadError(lambdaEnv({ AWS_REGION: region }));
    }
    expect(stub.requests).toHaveLength(0);
    const { ssmEndpoint } = await import("../../lib/core/secrets/ssm-call.ts");
    expect(ssmEndpoint("eu-west-3").href).toBe("https://ssm.eu-west-3.amazonaws.com/");
    expect(ssmEndpoint("us-gov-west-1").href).toBe("https://ssm.us-gov-west-1.amazonaws.com/");
    expect(ssmEndpoint("cn-north-1").href).toBe("https://ssm.cn-north-1.amazonaws.com.cn/");
    expect(() => ssmEndpoint("x.evil.example/")).toThrow(/not an AWS region name/);
  });

  it("refuses an AWS_ENDPOINT_URL_SSM that is not an http(s) URL without credentials", async () => {
    for (const endpoint of ["not a url", "file:///etc/passwd", "http://user:pass@127.0.0.1:1/"]) {
      expect((await loadError(lambdaEnv({ AWS_ENDPOINT_URL_SSM: endpoint }))).message).toBe("AWS_ENDPOINT_URL_SSM is not an http(s) URL without credentials");
    }
    expect(stub.requests).toHaveLength(0);
  });
});
