import type http from "node:http";
import { FINAL_STATUSES, type JobStore, type StoredJob } from "../../jobs/job-store.js";
import type { Logger } from "../../logging/logger.js";
import { createDashboardAuth } from "./dashboard-auth.js";
import { JOB_SCRIPT, STYLESHEET } from "./dashboard-assets.js";
import { jobFields, renderArtifacts, renderJobPage, renderJobsPage, renderLoginPage, renderNotFound } from "./render-pages.js";
import { createTimeline, renderPieces, type Piece } from "./render-timeline.js";

export interface DashboardOptions {
  /** TACKLE_DASHBOARD_TOKEN. */
  token: string;
  /** TACKLE_PUBLIC_URL: its origin is accepted on forms, and https there makes the cookie Secure. */
  publicUrl: string | null;
  store: JobStore;
  /** The queue's own view (@bull-board) under /dashboard/queues, when Redis is used. @defaultValue none */
  queueBoard?: { handle(req: http.IncomingMessage, res: http.ServerResponse): void; close(): Promise<void> };
  logger: Logger;
  /** How often a live page looks for changes it was not told of. @defaultValue 2_000 */
  pollMs?: number;
  /** Jobs on the list page. @defaultValue 200 */
  listLimit?: number;
}

export interface Dashboard {
  /** Whether the request is for the dashboard (`/dashboard` and below). */
  matches(req: http.IncomingMessage): boolean;
  handle(req: http.IncomingMessage, res: http.ServerResponse): void;
  close(): Promise<void>;
}

const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

const QUEUE_BOARD_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'self'";

/** Longest login form body read. */
const MAX_FORM_BYTES = 4096;
/** Wrong tokens accepted per minute, from everyone together; past it, sign-ins wait for the minute to pass. */
const MAX_FAILED_SIGN_INS = 20;

/**
 * The dashboard on `tackle server`: jobs across every worker, each job's transcript as a timeline
 * (live over server-sent events while it runs), its artifacts as downloads, and the queue. Every page
 * needs the token (Bearer) or the login cookie; unsafe requests must come from the dashboard's origin.
 * Pages are rendered here with every text escaped (render-pages.ts, render-timeline.ts).
 */
export function createDashboard(options: DashboardOptions): Dashboard {
  const auth = createDashboardAuth({ token: options.token, publicUrl: options.publicUrl });
  const { store, logger } = options;
  const streams = new Set<() => void>();
  let failures: number[] = [];
  /** Whether the form's wrong tokens passed the limit within the last minute. */
  const guessing = (): boolean => {
    failures = failures.filter((at) => at > Date.now() - 60_000);
    return failures.length >= MAX_FAILED_SIGN_INS;
  };

  const send = (res: http.ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...PAGE_HEADERS, ...headers }).end(body);
  };
  const redirect = (res: http.ServerResponse, location: string, headers: Record<string, string> = {}): void => {
    res.writeHead(303, { location, "cache-control": "no-store", ...headers }).end();
  };

  const route = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? "/", "http://dashboard.invalid");
    const path = url.pathname;
    const method = req.method ?? "GET";
    const reading = method === "GET" || method === "HEAD";

    if (reading && path === "/dashboard/static/dashboard.css") return asset(res, "text/css; charset=utf-8", STYLESHEET);
    if (reading && path === "/dashboard/static/job.js") return asset(res, "text/javascript; charset=utf-8", JOB_SCRIPT);
    if (path === "/dashboard/login") {
      if (reading) return auth.authorized(req) ? redirect(res, "/dashboard") : send(res, 200, renderLoginPage());
      if (method !== "POST") return send(res, 405, renderNotFound("Use the form."));
      if (!auth.sameOrigin(req)) return send(res, 403, renderLoginPage("This form must be sent from the dashboard's own page."));
      const token = new URLSearchParams(await readBody(req)).get("token") ?? "";
      // Counted after the body is read, in the same step as the comparison: posts waiting together cannot all pass.
      if (guessing()) return send(res, 429, renderLoginPage("Too many wrong tokens: try again in a minute."), { "retry-after": "60" });
      if (!auth.accepts(token)) {
        failures.push(Date.now());
        logger.warn({ remote: req.socket.remoteAddress }, "dashboard: a sign-in with a wrong token");
        return send(res, 401, renderLoginPage("That is not the dashboard token."));
      }
      return redirect(res, "/dashboard", { "set-cookie": auth.loginCookie(req) });
    }
    // Unsafe methods: SameSite=Strict keeps the cookie off other sites' requests, and the Origin must be ours.
    if (!reading && !auth.sameOrigin(req) && !/^bearer\s/i.test(req.headers.authorization ?? "")) {
      return send(res, 403, renderNotFound("Requests that change something must come from the dashboard's own pages."));
    }
    if (!auth.authorized(req)) {
      const wantsPage = reading && (req.headers.accept ?? "").includes("text/html");
      if (wantsPage) return redirect(res, "/dashboard/login");
      res
        .writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="tackle dashboard"', ...PAGE_HEADERS })
        .end("sign in first\n");
      return;
    }
    if (path === "/dashboard/logout" && method === "POST") return redirect(res, "/dashboard/login", { "set-cookie": auth.logoutCookie(req) });
    if (path === "/dashboard/queues" || path.startsWith("/dashboard/queues/")) {
      if (options.queueBoard === undefined) return send(res, 404, renderNotFound("The queue view needs Redis (REDIS_URL)."));
      req.url = (req.url ?? "").slice("/dashboard/queues".length) || "/";
      res.setHeader("x-content-type-options", "nosniff");
      res.setHeader("x-frame-options", "DENY");
      res.setHeader("referrer-policy", "same-origin");
      // bull-board's page: its own scripts only (its config is a JSON block, not code); styles it sets
      // inline; nothing from another origin (it asks for Google's fonts: the system's serve).
      res.setHeader("content-security-policy", QUEUE_BOARD_CSP);
      return options.queueBoard.handle(req, res);
    }
    if (!reading) return send(res, 405, renderNotFound("Nothing to do here."));
    if (path === "/dashboard" || path === "/dashboard/") {
      const jobs = await store.list(options.listLimit ?? 200);
      return send(res, 200, renderJobsPage(jobs, { queues: options.queueBoard !== undefined }));
    }
    const match = /^\/dashboard\/jobs\/([^/]+)(?:\/(events|artifacts\/([^/]+)))?$/.exec(path);
    if (match === null) return send(res, 404, renderNotFound("No such page."));
    const jobId = decodeURIComponent(match[1]!);
    const job = await store.get(jobId);
    if (job === null) return send(res, 404, renderNotFound("No such job (it may have passed the store's retention)."));
    if (match[2] === "events") {
      const lastId = Number(req.headers["last-event-id"] ?? url.searchParams.get("cursor") ?? 0);
      return streamJob(req, res, job, Number.isFinite(lastId) ? lastId : 0);
    }
    if (match[3] !== undefined) return download(res, jobId, decodeURIComponent(match[3]));
    const { pieces, lines } = await readTimeline(job.jobId);
    const live = !FINAL_STATUSES.includes(job.status);
    return send(res, 200, renderJobPage(job, renderPieces(pieces), lines, { queues: options.queueBoard !== undefined, live }));
  };

  /**
   * The transcript through a new timeline: the pieces of the lines after the first `skip`, how many
   * lines there were, the store's cursor past them, and the timeline to go on with.
   */
  const readTimeline = async (jobId: string, skip = 0) => {
    const timeline = createTimeline();
    const pieces: Piece[] = [];
    let cursor = 0;
    let lines = 0;
    for (;;) {
      const chunk = await store.readTranscript(jobId, cursor);
      for (const line of chunk.lines) {
        const made = timeline.add(line);
        if (lines++ >= skip) pieces.push(...made);
      }
      if (chunk.lines.length === 0 || chunk.cursor === cursor) return { pieces, lines, cursor, timeline };
      cursor = chunk.cursor;
    }
  };

  const download = async (res: http.ServerResponse, jobId: string, artifactId: string): Promise<void> => {
    const artifact = await store.readArtifact(jobId, artifactId);
    if (artifact === null) return send(res, 404, renderNotFound("No such artifact."));
    const name = artifact.meta.name;
    res
      .writeHead(200, {
        // Never rendered on the dashboard's origin: a download, unsniffed, and sandboxed should a browser open it anyway.
        "content-type": "application/octet-stream",
        "content-disposition": `attachment; filename="${name.replace(/[^A-Za-z0-9._ -]/g, "_")}"; filename*=UTF-8''${encodeURIComponent(name)}`,
        "x-content-type-options": "nosniff",
        "content-security-policy": "sandbox; default-src 'none'",
        "cache-control": "no-store",
        "content-length": String(artifact.content.length),
      })
      .end(artifact.content);
  };

  /**
   * Server-sent events for one job's page: `pieces` (timeline markup, escaped here) after the
   * `after` lines the page already has, `job` (its figures and artifacts) when they change, `end`
   * once it is over and everything was sent. Each event's id is the line count, which a reconnect
   * sends back as Last-Event-ID.
   */
  const streamJob = async (req: http.IncomingMessage, res: http.ServerResponse, first: StoredJob, after: number): Promise<void> => {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      "x-content-type-options": "nosniff",
    });
    // The page has the first `after` lines; what came since goes out at once.
    const read = await readTimeline(first.jobId, after);
    const timeline = read.timeline;
    const backlog = read.pieces;
    let cursor = read.cursor;
    let lineCount = read.lines;
    let lastJob = "";
    let closed = false;
    let running = false;
    let again = false;
    const write = (event: string, data: unknown): void => {
      if (!closed) res.write(`id: ${lineCount}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    const pump = async (): Promise<void> => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          const job = await store.get(first.jobId);
          const chunk = await store.readTranscript(first.jobId, cursor);
          const pieces = chunk.lines.flatMap((line) => timeline.add(line));
          cursor = chunk.cursor;
          lineCount += chunk.lines.length;
          if (pieces.length > 0) write("pieces", pieces.map(toWire));
          if (job !== null) {
            const state = JSON.stringify({ fields: jobFields(job), artifacts: renderArtifacts(job).value });
            if (state !== lastJob) write("job", JSON.parse(state));
            lastJob = state;
            if (FINAL_STATUSES.includes(job.status) && chunk.lines.length === 0) {
              write("end", {});
              stop();
              res.end();
              return;
            }
          }
        } while (again && !closed);
      } catch (error) {
        logger.warn({ err: error }, "dashboard: could not follow a job");
      } finally {
        running = false;
      }
    };
    const unwatch = store.watch(first.jobId, () => void pump());
    const poll = setInterval(() => void pump(), options.pollMs ?? 2_000);
    const heartbeat = setInterval(() => !closed && res.write(": keep-alive\n\n"), 15_000);
    const stop = (): void => {
      if (closed) return;
      closed = true;
      unwatch();
      clearInterval(poll);
      clearInterval(heartbeat);
      streams.delete(stop);
    };
    streams.add(stop);
    req.on("close", stop);
    // A page closed while the transcript was being read has already said so.
    if (res.destroyed) {
      stop();
      return;
    }
    if (backlog.length > 0) write("pieces", backlog.map(toWire));
    await pump();
  };

  return {
    matches(req) {
      const path = (req.url ?? "").split("?")[0] ?? "";
      return path === "/dashboard" || path.startsWith("/dashboard/");
    },
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        logger.error({ err: error }, "dashboard: a request failed");
        if (!res.headersSent) send(res, 500, renderNotFound("The dashboard could not read its store; see the server's log."));
        else res.end();
      });
    },
    async close() {
      for (const stop of [...streams]) stop();
      await options.queueBoard?.close();
    },
  };
}

function toWire(piece: Piece): { target: string; html: string } {
  return { target: piece.target, html: piece.open + piece.close };
}

function asset(res: http.ServerResponse, type: string, body: string): void {
  res.writeHead(200, { "content-type": type, "x-content-type-options": "nosniff", "cache-control": "no-cache" }).end(body);
}

async function readBody(req: http.IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_FORM_BYTES) break;
  }
  return body.slice(0, MAX_FORM_BYTES);
}
