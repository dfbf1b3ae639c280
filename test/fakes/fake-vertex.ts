import { readBody } from "./read-body.js";
import { forwardToFakeAnthropic } from "./forward-to-fake-anthropic.js";
/**
 * A fake Vertex AI endpoint for Claude on 127.0.0.1, and the Google token service in front of it, the
 * content served by a scripted fake Anthropic behind both:
 * - `POST /v1/projects/{p}/locations/{r}/publishers/anthropic/models/{model}:streamRawPredict` (and
 *   `:rawPredict`): a Google OAuth bearer token this fake issued is required; the model comes from the
 *   path, `anthropic_version` from the body (and `model` there refused); the stream is the Messages
 *   API's SSE, passed through.
 * - `POST /sts/v1/token`: Google's Security Token Service, as workload identity federation uses it:
 *   a subject token read from a file is exchanged for an access token. writeCredentials() writes the
 *   `external_account` credentials file that points google-auth-library here, so a test goes through
 *   GOOGLE_APPLICATION_CREDENTIALS exactly as a deployment does, and never reaches Google.
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { startFakeAnthropic, type FakeAnthropic, type ScriptedModel } from "./fake-anthropic.js";

export interface FakeVertexOptions {
  /** @defaultValue "tackle-test-project" */
  project?: string;
  /** @defaultValue "us-east5" */
  region?: string;
}

export interface VertexRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body (empty when it was not JSON). */
  body: Record<string, unknown>;
  model: string;
  stream: boolean;
  /** Whether it carried an access token this fake issued. */
  authorized: boolean;
  status: number;
}

export interface TokenExchange {
  /** The form fields google-auth-library sent. */
  form: Record<string, string>;
  /** The access token issued; undefined when the exchange was refused. */
  issued?: string;
}

export interface FakeVertex {
  /** The endpoint, as ANTHROPIC_VERTEX_BASE_URL (ends in /v1, as Vertex's own). */
  readonly url: string;
  readonly project: string;
  readonly region: string;
  readonly model: FakeAnthropic;
  readonly requests: VertexRequest[];
  readonly tokenExchanges: TokenExchange[];
  /** Writes the subject token and an `external_account` credentials file using it into `dir`; returns the file's path. */
  writeCredentials(dir: string): Promise<string>;
  /** TACKLE_PROVIDER=vertex with this fake's region, project, URL and `credentialsFile`, for the process under test. */
  env(credentialsFile: string): Record<string, string>;
  close(): Promise<void>;
}

const AUDIENCE = "//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/tackle-test/providers/fake";
const JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";
const ROUTE = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/([^/:]+):(streamRawPredict|rawPredict)$/;

export async function startFakeVertex(script: ScriptedModel, options: FakeVertexOptions = {}): Promise<FakeVertex> {
  const project = options.project ?? "tackle-test-project";
  const region = options.region ?? "us-east5";
  const model = await startFakeAnthropic(script, { minCacheableTokens: 0 });
  const subjectToken = `fake-oidc-subject-${randomBytes(12).toString("hex")}`;
  const issued = new Set<string>();
  const requests: VertexRequest[] = [];
  const tokenExchanges: TokenExchange[] = [];

  const server = createServer((req, res) => {
    const handler = req.url === "/sts/v1/token" ? exchangeToken : predict;
    handler(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendGoogleError(res, 500, "INTERNAL", `fake Vertex crashed: ${String(error)}`);
      else res.destroy();
    });
  });

  async function exchangeToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = Object.fromEntries(new URLSearchParams((await readBody(req)).toString("utf8")));
    const exchange: TokenExchange = { form };
    tokenExchanges.push(exchange);
    const valid =
      req.method === "POST" &&
      form.grant_type === "urn:ietf:params:oauth:grant-type:token-exchange" &&
      form.subject_token === subjectToken &&
      form.subject_token_type === JWT_TOKEN_TYPE &&
      form.audience === AUDIENCE;
    if (!valid) {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "invalid_grant", error_description: "The subject token or audience is not the one configured." }));
      return;
    }
    const token = `ya29.fake-${randomBytes(16).toString("hex")}`;
    issued.add(token);
    exchange.issued = token;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({ access_token: token, issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "Bearer", expires_in: 3600 }),
    );
  }

  async function predict(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const route = ROUTE.exec(url.pathname);
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ""))?.[1];
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      // Refused below, once the request is on record.
    }
    const record: VertexRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      headers: req.headers,
      body,
      model: route ? decodeURIComponent(route[3]!) : "",
      stream: route?.[4] === "streamRawPredict",
      authorized: bearer !== undefined && issued.has(bearer),
      status: 0,
    };
    requests.push(record);
    const fail = (status: number, googleStatus: string, message: string) => {
      record.status = status;
      sendGoogleError(res, status, googleStatus, message);
    };
    if (!record.authorized) return fail(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.");
    if (req.method !== "POST" || !route) return fail(404, "NOT_FOUND", `no method at ${req.method} ${url.pathname}`);
    if (decodeURIComponent(route[1]!) !== project) return fail(403, "PERMISSION_DENIED", `Permission denied on project ${route[1]}`);
    if (decodeURIComponent(route[2]!) !== region) return fail(404, "NOT_FOUND", `Publisher model not found in location ${route[2]}`);
    if (typeof body.anthropic_version !== "string") return fail(400, "INVALID_ARGUMENT", "anthropic_version: Field required");
    if ("model" in body) return fail(400, "INVALID_ARGUMENT", "model: Extra inputs are not permitted (the model is in the URL)");

    const { anthropic_version: version, ...messages } = body;
    const upstream = await forwardToFakeAnthropic(model, { ...messages, model: record.model, stream: record.stream }, version);
    record.status = upstream.statusCode ?? 500;
    // Claude's own answers and errors come back in the Messages API's shapes, SSE included.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(upstream.headers)) if (typeof value === "string" && name !== "request-id") headers[name] = value;
    res.writeHead(record.status, headers);
    upstream.pipe(res);
    upstream.on("aborted", () => res.destroy());
    // A client that goes away ends the model's answer too, as a real endpoint does.
    res.on("close", () => upstream.destroy());
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}/v1`,
    project,
    region,
    model,
    requests,
    tokenExchanges,
    async writeCredentials(dir) {
      const tokenFile = path.join(dir, "oidc-subject-token");
      await writeFile(tokenFile, subjectToken, { mode: 0o600 });
      const credentials = {
        type: "external_account",
        audience: AUDIENCE,
        subject_token_type: JWT_TOKEN_TYPE,
        token_url: `${origin}/sts/v1/token`,
        credential_source: { file: tokenFile },
      };
      const file = path.join(dir, "google-credentials.json");
      await writeFile(file, JSON.stringify(credentials, null, 2), { mode: 0o600 });
      return file;
    },
    env: (credentialsFile) => ({
      TACKLE_PROVIDER: "vertex",
      CLOUD_ML_REGION: region,
      ANTHROPIC_VERTEX_PROJECT_ID: project,
      ANTHROPIC_VERTEX_BASE_URL: `${origin}/v1`,
      GOOGLE_APPLICATION_CREDENTIALS: credentialsFile,
    }),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await model.close();
    },
  };
}

function sendGoogleError(res: ServerResponse, status: number, googleStatus: string, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { code: status, message, status: googleStatus } }));
}
