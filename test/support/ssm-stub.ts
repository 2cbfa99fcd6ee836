import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A loopback server speaking SSM's JSON protocol for `AmazonSSM.GetParameters`: SSM has no local
 * edition, and the secret loader (lib/core/secrets) must be seen making its real, signed call.
 * It answers as SSM does: the parameters it holds (decrypted only when asked), InvalidParameters
 * for names it does not, AccessDeniedException for names it is told to refuse, and nothing at all
 * (a stalled connection) when told to stall. `answer`, when set, answers instead (fault injection:
 * bodies SSM never sends).
 */
export interface StubParameter {
  value: string;
  type?: "String" | "SecureString";
}

export interface SsmRequest {
  method: string;
  /** Path and query, as received. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  input: { Names?: string[]; WithDecryption?: boolean };
}

export interface SsmStub {
  url: string;
  requests: SsmRequest[];
  deny: Set<string>;
  stall: boolean;
  /** Answers every request in its place while set. */
  answer: ((res: ServerResponse) => void) | undefined;
  close(): Promise<void>;
}

export async function startSsmStub(parameters: Record<string, StubParameter>): Promise<SsmStub> {
  const stub: Omit<SsmStub, "url" | "close"> = { requests: [], deny: new Set(), stall: false, answer: undefined };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let input: SsmRequest["input"] = {};
      try {
        input = JSON.parse(body) as SsmRequest["input"];
      } catch {
        // Recorded as sent; answered below as SSM answers a malformed body.
      }
      stub.requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body, input });
      if (stub.stall) return;
      if (stub.answer) {
        stub.answer(res);
        return;
      }
      const answer = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/x-amz-json-1.1" });
        res.end(JSON.stringify(value));
      };
      if (req.headers["x-amz-target"] !== "AmazonSSM.GetParameters" || !Array.isArray(input.Names)) {
        answer(400, { __type: "com.amazon.coral.service#UnknownOperationException", message: "unknown operation" });
        return;
      }
      const denied = input.Names.find((name) => stub.deny.has(name));
      if (denied) {
        answer(400, {
          __type: "AccessDeniedException",
          message: `User: arn:aws:sts::123456789012:assumed-role/blog-prod/fn is not authorized to perform: ssm:GetParameters on resource: arn:aws:ssm:us-east-1:123456789012:parameter${denied}`,
        });
        return;
      }
      const held = input.Names.filter((name) => parameters[name] !== undefined);
      answer(200, {
        Parameters: held.map((name) => {
          const { value, type = "SecureString" } = parameters[name] as StubParameter;
          // Without decryption SSM answers a SecureString's ciphertext, never the value.
          const shown = type === "SecureString" && input.WithDecryption !== true ? Buffer.from(`ciphertext:${name}`).toString("base64") : value;
          return { Name: name, Type: type, Value: shown, Version: 1, ARN: `arn:aws:ssm:us-east-1:123456789012:parameter${name}`, DataType: "text" };
        }),
        InvalidParameters: input.Names.filter((name) => parameters[name] === undefined),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(stub, {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  });
}
