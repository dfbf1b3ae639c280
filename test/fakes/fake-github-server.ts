import { readBody } from "./read-body.js";
/**
 * The fake GitHub's HTTP front: routes each request to git smart HTTP or to the REST table,
 * applies GitHub's authentication rules and injected failures, and logs what it answered.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { verifyAppJwt } from "./app-jwt.js";
import type { FailureInjector } from "./failure-injection.js";
import { serveGitHttp } from "./fake-github-git.js";
import { compileRoutes, githubError, HttpError, matchRoute, type Auth, type World } from "./fake-github-http.js";
import { tokenCanSee } from "./fake-github-render.js";
import { appRoutes } from "./fake-github-routes-app.js";
import { issueRoutes } from "./fake-github-routes-issues.js";
import { manifestPage, manifestRoutes } from "./fake-github-routes-manifest.js";
import { pullRoutes } from "./fake-github-routes-pulls.js";
import { repoRoutes } from "./fake-github-routes-repos.js";
import { findRepo, type TokenRecord } from "./fake-github-state.js";
import { isoTime } from "./github-json.js";
import type { RequestLog, RequestLogEntry } from "./request-log.js";

const ROUTES = compileRoutes([...appRoutes, ...manifestRoutes, ...repoRoutes, ...issueRoutes, ...pullRoutes]);

export interface RequestHandlerDeps {
  world: World;
  log: RequestLog;
  failures: FailureInjector;
  /** The delay before answering this request. */
  latencyMs: (request: { method: string; path: string }) => number;
}

export function createRequestHandler(deps: RequestHandlerDeps): (req: IncomingMessage, res: ServerResponse) => void {
  const { world, log, failures } = deps;
  const rateUsed = new Map<string, number>();

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = Date.now();
    const url = new URL(req.url ?? "/", world.links.web);
    const method = (req.method ?? "GET").toUpperCase();
    const entry: RequestLogEntry = {
      kind: "other",
      method,
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
      bytesSent: 0,
      bytesReceived: 0,
      at,
      durationMs: 0,
    };
    const finish = () => {
      entry.durationMs = Date.now() - at;
      log.record(entry);
    };
    const delay = deps.latencyMs({ method, path: url.pathname });
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    const gitMatch = /^\/([^/]+)\/([^/]+?)\.git(\/.*)?$/.exec(url.pathname);
    if (gitMatch) {
      entry.kind = "git";
      await handleGit(req, res, url, entry, gitMatch[1] ?? "", gitMatch[2] ?? "", gitMatch[3] ?? "");
      return finish();
    }
    const raw = await readBody(req);
    entry.bytesReceived = raw.length;
    if (url.pathname === "/api/v3" || url.pathname.startsWith("/api/v3/")) entry.kind = "rest";
    const injected = failures.take({ method, path: url.pathname, kind: entry.kind });
    if (injected) {
      entry.injected = true;
      sendJson(res, entry, injected.status, injected.body, injected.headers);
      return finish();
    }
    // The one web page the fakes serve: where the App manifest flow starts.
    const page = entry.kind === "other" ? manifestPage(world, method, url, raw) : null;
    if (page) {
      entry.route = `${method} ${url.pathname}`;
      send(res, entry, page.status, Buffer.from(page.html), { "content-type": "text/html; charset=utf-8", ...page.headers });
      return finish();
    }
    try {
      const result = await handleRest(req, url, method, raw, entry);
      if (result.raw) send(res, entry, result.status ?? 200, result.raw, { ...restHeaders(entry), ...result.headers });
      else sendJson(res, entry, result.status ?? 200, result.body, result.headers);
    } catch (error) {
      // A bug in the fake still answers (and is logged) like a GitHub 500, with the cause for debugging.
      const httpError =
        error instanceof HttpError ? error : githubError(500, `fake GitHub internal error: ${error instanceof Error ? error.stack : String(error)}`);
      sendJson(res, entry, httpError.status, httpError.body, httpError.headers);
    }
    finish();
  }

  async function handleRest(req: IncomingMessage, url: URL, method: string, raw: Buffer, entry: RequestLogEntry) {
    if (entry.kind !== "rest") throw githubError(404, "Not Found");
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        throw githubError(400, "Problems parsing JSON");
      }
      entry.body = body;
    }
    const apiPath = url.pathname.slice("/api/v3".length) || "/";
    const matched = matchRoute(ROUTES, method, apiPath);
    if (!matched) throw githubError(404, "Not Found");
    entry.route = `${matched.route.method} ${matched.route.path.replace("{+", "{")}`;
    const auth: Auth = matched.route.auth === "none" ? { kind: "none" } : authenticate(req, matched.route.auth, entry);
    return matched.route.handler({ world, params: matched.params, query: url.searchParams, body, auth, headers: req.headers, url });
  }

  function authenticate(req: IncomingMessage, kind: "jwt" | "token", entry: RequestLogEntry): Auth {
    const header = req.headers.authorization ?? "";
    const presented = /^(?:token|bearer)\s+(\S+)$/i.exec(header)?.[1];
    if (presented) entry.token = presented;
    if (!presented) throw githubError(401, "Requires authentication");
    if (kind === "jwt") {
      const check = verifyAppJwt(presented, world.app.publicKey, world.app.id);
      if (!check.ok) throw githubError(401, check.message);
      entry.login = world.app.slug;
      return { kind: "app" };
    }
    const token = liveToken(presented);
    if (!token) throw githubError(401, "Bad credentials");
    entry.login = token.login;
    return { kind: "token", token };
  }

  function liveToken(value: string | undefined): TokenRecord | undefined {
    const token = value === undefined ? undefined : world.state.tokens.get(value);
    return token && !token.revoked && token.expiresAt > Date.now() ? token : undefined;
  }

  /** Git over HTTP: GitHub's auth rules, then git's own CGI. */
  async function handleGit(req: IncomingMessage, res: ServerResponse, url: URL, entry: RequestLogEntry, owner: string, name: string, suffix: string) {
    req.on("data", (chunk: Buffer) => {
      entry.bytesReceived += chunk.length;
    });
    const repo = findRepo(world.state, owner, name);
    const service = url.searchParams.get("service") ?? url.pathname.split("/").pop() ?? "";
    const isPush = service === "git-receive-pack";
    const presented = gitCredential(req.headers.authorization);
    if (presented) entry.token = presented;
    const denyText = (status: number, text: string, headers: Record<string, string> = {}) => {
      req.resume();
      send(res, entry, status, Buffer.from(`${text}\n`), { "content-type": "text/plain; charset=utf-8", ...headers });
    };
    const injected = failures.take({ method: entry.method, path: url.pathname, kind: "git" });
    if (injected) {
      entry.injected = true;
      return denyText(injected.status, JSON.stringify(injected.body), injected.headers);
    }
    const anonymousOk = repo && !repo.private && !isPush;
    if (!presented && !anonymousOk) return denyText(401, "Authentication required", { "www-authenticate": 'Basic realm="GitHub"' });
    const token = presented ? liveToken(presented) : undefined;
    if (presented && !token) {
      return denyText(401, "Invalid username or token. Password authentication is not supported for Git operations.", {
        "www-authenticate": 'Basic realm="GitHub"',
      });
    }
    if (token) entry.login = token.login;
    if (!repo || (token && !tokenCanSee(token, world, repo))) return denyText(404, "Repository not found.");
    if (isPush && token?.permissions.contents !== "write") {
      return denyText(403, `Permission to ${repo.owner}/${repo.name}.git denied to ${token?.login ?? "anonymous"}.`);
    }
    const result = await serveGitHttp(world.git, {
      req,
      res,
      pathInfo: `/${repo.owner.toLowerCase()}/${repo.name.toLowerCase()}.git${suffix}`,
      query: url.search.slice(1),
      remoteUser: token?.login ?? "",
      extraEnv: { FAKE_GITHUB_WORKFLOWS: token?.permissions.workflows ?? "none" },
    });
    entry.status = result.status;
    entry.bytesSent = result.bytesSent;
    if (isPush && req.method === "POST" && result.status === 200) repo.pushedAt = isoTime();
  }

  function restHeaders(entry: RequestLogEntry): Record<string, string> {
    const used = entry.token ? (rateUsed.get(entry.token) ?? 0) + 1 : 1;
    if (entry.token) rateUsed.set(entry.token, used);
    return {
      "x-github-request-id": `${randomBytes(2).toString("hex").toUpperCase()}:${randomBytes(3).toString("hex").toUpperCase()}:${randomBytes(4).toString("hex").toUpperCase()}`,
      "x-github-media-type": "github.v3; format=json",
      "x-github-api-version-selected": "2022-11-28",
      "x-github-enterprise-version": "3.14.0",
      "x-ratelimit-limit": "5000",
      // Never 0: a remaining of 0 on a 403 means "primary rate limit" to Octokit's throttling plugin.
      "x-ratelimit-remaining": String(Math.max(5000 - used, 1)),
      "x-ratelimit-used": String(used),
      "x-ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
      "x-ratelimit-resource": "core",
    };
  }

  function sendJson(res: ServerResponse, entry: RequestLogEntry, status: number, body: unknown, headers: Record<string, string> = {}) {
    const payload = status === 204 || body === undefined ? Buffer.alloc(0) : Buffer.from(JSON.stringify(body));
    send(res, entry, status, payload, { ...restHeaders(entry), "content-type": "application/json; charset=utf-8", ...headers });
  }

  function send(res: ServerResponse, entry: RequestLogEntry, status: number, payload: Buffer, headers: Record<string, string>) {
    entry.status = status;
    entry.bytesSent = payload.length;
    res.writeHead(status, { ...headers, "content-length": String(payload.length) });
    res.end(payload);
  }

  return (req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`fake GitHub crashed: ${error instanceof Error ? error.stack : String(error)}`);
    });
  };
}

/** Token from `Authorization`: Basic (password, or the username when it is the token), Bearer or token. */
function gitCredential(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const scheme = /^(\w+)\s+(\S+)$/.exec(header);
  if (!scheme) return undefined;
  const [, kind = "", value = ""] = scheme;
  if (/^(bearer|token)$/i.test(kind)) return value;
  if (!/^basic$/i.test(kind)) return undefined;
  const decoded = Buffer.from(value, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const user = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? "" : decoded.slice(colon + 1);
  // `x-access-token:TOKEN` (Apps) and `TOKEN:x-oauth-basic` (PATs) both work on GitHub.
  if (password && password !== "x-oauth-basic") return password;
  return user || undefined;
}
