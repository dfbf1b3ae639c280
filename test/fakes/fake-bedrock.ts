import { readBody } from "./read-body.js";
import { forwardToFakeAnthropic } from "./forward-to-fake-anthropic.js";
/**
 * A fake Amazon Bedrock runtime on 127.0.0.1 for Claude: `POST /model/{modelId}/invoke` and
 * `/model/{modelId}/invoke-with-response-stream`, SigV4-checked against the test's known keys, the
 * content served by a scripted fake Anthropic behind it. What differs from the Messages API is done
 * as Bedrock does it: the model in the path, `anthropic_version` in the body (and `model` or `stream`
 * there refused), the stream in AWS event-stream frames (one `chunk` per Messages API event, split
 * across writes), errors as `{message}` with `x-amzn-ErrorType`, and a stream's error as an exception frame.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bedrockChunk, bedrockException } from "./aws-event-stream.js";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedModel } from "./fake-anthropic.js";
import { verifySigV4, type SigV4Verdict, type SignedRequest } from "./verify-sigv4.js";

export interface FakeBedrockOptions {
  /** @defaultValue "us-east-1" */
  region?: string;
  /** The keys a request must be signed with; a session token is then required too. @defaultValue fixed test keys with a session token */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** A Bedrock API key also accepted, as `Authorization: Bearer` in place of a signature. */
  apiKey?: string;
}

export interface BedrockRequest extends SignedRequest {
  /** The model id from the path, decoded. */
  modelId: string;
  stream: boolean;
  /** The SigV4 check of this request. */
  signature: SigV4Verdict;
  /** Whether it carried the fake's API key as a bearer token instead. */
  bearer: boolean;
  status: number;
}

export interface FakeBedrock {
  /** The endpoint, as ANTHROPIC_BEDROCK_BASE_URL. */
  readonly url: string;
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** The scripted model behind it: its `requests` are the Messages API requests Bedrock's were turned into. */
  readonly model: FakeAnthropic;
  /** Every request received, in order. */
  readonly requests: BedrockRequest[];
  /** TACKLE_PROVIDER=bedrock with this fake's region, keys and URL, for the process under test. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

/** Built by concatenation so the file does not look like a credential to a scanner. */
const TEST_KEYS = {
  accessKeyId: `${"AKIA"}TACKLEFAKE000001`,
  secretAccessKey: `fake/secret+key/${"0".repeat(24)}`,
  sessionToken: `fake-session-token-${"1".repeat(24)}`,
};

/** The Messages API's error types, as the exception Bedrock names in `x-amzn-ErrorType` or an exception frame. */
const EXCEPTIONS: Record<string, string> = {
  invalid_request_error: "ValidationException",
  authentication_error: "AccessDeniedException",
  permission_error: "AccessDeniedException",
  not_found_error: "ResourceNotFoundException",
  request_too_large: "ValidationException",
  rate_limit_error: "ThrottlingException",
  api_error: "InternalServerException",
  overloaded_error: "ServiceUnavailableException",
};

const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

export async function startFakeBedrock(script: ScriptedModel, options: FakeBedrockOptions = {}): Promise<FakeBedrock> {
  const region = options.region ?? "us-east-1";
  const credentials = options.credentials ?? TEST_KEYS;
  const model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  const requests: BedrockRequest[] = [];

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, 500, "InternalServerException", `fake Bedrock crashed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const rawUrl = req.url ?? "/";
    const route = ROUTE.exec(rawUrl.split("?")[0] ?? "");
    const signature = verifySigV4({ method: req.method ?? "GET", rawUrl, headers: req.headers, body }, { ...credentials, region, service: "bedrock" });
    const record: BedrockRequest = {
      method: req.method ?? "GET",
      rawUrl,
      headers: req.headers,
      body,
      modelId: route ? decodeURIComponent(route[1]!) : "",
      stream: route?.[2] === "invoke-with-response-stream",
      signature,
      bearer: options.apiKey !== undefined && req.headers.authorization === `Bearer ${options.apiKey}`,
      status: 0,
    };
    requests.push(record);
    const fail = (status: number, exception: string, message: string, headers: Record<string, string> = {}) => {
      record.status = status;
      sendError(res, status, exception, message, headers);
    };
    if (!signature.ok && !record.bearer) {
      const missing = req.headers.authorization === undefined;
      return fail(403, missing ? "MissingAuthenticationTokenException" : "InvalidSignatureException", signature.reason);
    }
    if (req.method !== "POST" || !route) return fail(404, "UnknownOperationException", `no operation at ${req.method} ${rawUrl}`);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
    } catch {
      return fail(400, "ValidationException", "Malformed input request, please reformat your input and try again.");
    }
    if (typeof parsed.anthropic_version !== "string")
      return fail(400, "ValidationException", "Malformed input request: required key [anthropic_version] not found");
    for (const extraneous of ["model", "stream"]) {
      if (extraneous in parsed) return fail(400, "ValidationException", `Malformed input request: extraneous key [${extraneous}] is not permitted`);
    }
    const { anthropic_version: version, anthropic_beta: _beta, ...messages } = parsed;
    const upstream = await forwardToFakeAnthropic(model, { ...messages, model: record.modelId, stream: record.stream }, String(version));
    if (upstream.statusCode !== 200) {
      const error = JSON.parse((await readBody(upstream)).toString("utf8")) as { error?: { type?: string; message?: string } };
      const type = error.error?.type ?? "api_error";
      return fail(upstream.statusCode ?? 500, EXCEPTIONS[type] ?? "InternalServerException", error.error?.message ?? "error", retryHeaders(upstream));
    }
    record.status = 200;
    const requestId = randomUUID();
    if (!record.stream) {
      res.writeHead(200, { "content-type": "application/json", "x-amzn-requestid": requestId });
      res.end(await readBody(upstream));
      return;
    }
    res.writeHead(200, {
      "content-type": "application/vnd.amazon.eventstream",
      "x-amzn-requestid": requestId,
      "x-amzn-bedrock-content-type": "application/json",
    });
    await relayAsFrames(upstream, res);
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    region,
    credentials,
    model,
    requests,
    env: () => ({
      TACKLE_PROVIDER: "bedrock",
      AWS_REGION: region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      ...(credentials.sessionToken === undefined ? {} : { AWS_SESSION_TOKEN: credentials.sessionToken }),
      ANTHROPIC_BEDROCK_BASE_URL: url,
    }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await model.close();
    },
  };
}

function sendError(res: ServerResponse, status: number, exception: string, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    "content-type": "application/json",
    "x-amzn-errortype": `${exception}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    "x-amzn-requestid": randomUUID(),
    ...headers,
  });
  res.end(JSON.stringify({ message }));
}

/** What the SDK's retry decision reads, passed on from the scripted model's answer. */
function retryHeaders(upstream: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of ["retry-after", "retry-after-ms", "x-should-retry"]) {
    const value = upstream.headers[name];
    if (typeof value === "string") headers[name] = value;
  }
  return headers;
}

/**
 * Re-frames the scripted model's SSE stream: each event becomes one chunk frame (written in two
 * pieces, so a client that expects whole frames per read fails), message_stop gains Bedrock's
 * invocation metrics, an `error` event becomes an exception frame, and a cut connection is cut here
 * too, either way.
 */
function relayAsFrames(upstream: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = Date.now();
  let pending = "";
  let inputTokens = 0;
  let outputTokens = 0;
  const send = (frame: Buffer) => {
    const split = Math.min(7, frame.length - 1);
    res.write(frame.subarray(0, split));
    // A client that stops reading stops the model behind, as a real endpoint's backpressure does.
    if (!res.write(frame.subarray(split))) upstream.pause();
  };
  res.on("drain", () => upstream.resume());
  return new Promise((resolve) => {
    res.on("close", () => {
      upstream.destroy();
      resolve();
    });
    upstream.setEncoding("utf8");
    upstream.on("data", (text: string) => {
      pending += text;
      let end = pending.indexOf("\n\n");
      while (end >= 0) {
        const block = pending.slice(0, end);
        pending = pending.slice(end + 2);
        end = pending.indexOf("\n\n");
        const data = block
          .split("\n")
          .find((line) => line.startsWith("data: "))
          ?.slice("data: ".length);
        if (data === undefined) continue;
        const event = JSON.parse(data) as {
          type: string;
          error?: { type: string; message: string };
          message?: { usage?: { input_tokens?: number } };
          usage?: { output_tokens?: number };
        };
        if (event.type === "error") {
          send(bedrockException(lowerFirst(EXCEPTIONS[event.error?.type ?? ""] ?? "ModelStreamErrorException"), event.error?.message ?? "error"));
          continue;
        }
        if (event.type === "message_start") inputTokens = event.message?.usage?.input_tokens ?? 0;
        if (event.type === "message_delta") outputTokens = event.usage?.output_tokens ?? 0;
        const metrics =
          event.type === "message_stop"
            ? {
                "amazon-bedrock-invocationMetrics": {
                  inputTokenCount: inputTokens,
                  outputTokenCount: outputTokens,
                  invocationLatency: Date.now() - started,
                  firstByteLatency: 1,
                },
              }
            : {};
        send(bedrockChunk({ ...event, ...metrics }));
      }
    });
    upstream.on("end", () => {
      res.end();
      resolve();
    });
    upstream.on("aborted", () => {
      res.destroy();
      resolve();
    });
    upstream.on("error", () => {
      res.destroy();
      resolve();
    });
  });
}

function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}
