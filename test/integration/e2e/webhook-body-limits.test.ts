// What `tackle server` takes from a client before Probot's webhook middleware checks a signature: a
// body up to GitHub's 25 MB payload cap (a signed delivery that large still starts its job), nothing
// past it (413 on the Content-Length, or the connection cut once a chunked body passes the cap), and
// no request dripped slowly for longer than the request timeout, while a dashboard event stream on the
// same server lasts as long as its job.
import { request, type IncomingMessage } from "node:http";
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { issuesAssignedPayload, sendWebhook } from "../../fakes/index.js";
import { createLogger } from "../../../src/logging/logger.js";
import { MAX_WEBHOOK_BODY_BYTES } from "../../../src/web/buffer-webhook-body.js";
import { OWNER, REPO, startHarness, type Harness } from "./harness.js";
import { gate, perJobScript } from "./script-helpers.js";
import { lookScript, sessions } from "./trigger-helpers.js";

const REFUSAL = "webhook: refused a request body larger than GitHub's 25 MB payload cap (413, connection closed)";
const MiB = 1024 * 1024;

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The harness with its warnings collected as parsed log lines. */
async function startLogged(options: Parameters<typeof startHarness>[0]): Promise<{ harness: Harness; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ LOG_LEVEL: "warn" }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { harness: await startHarness({ ...options, logger }), lines };
}

/** Request line and headers of an unsigned delivery, as an attacker would send them. */
function unsignedHead(url: URL, framing: string): string {
  return [
    `POST ${url.pathname} HTTP/1.1`,
    `Host: ${url.host}`,
    "Content-Type: application/json",
    "X-GitHub-Event: issues",
    "X-GitHub-Delivery: 00000000-0000-0000-0000-000000000000",
    `X-Hub-Signature-256: sha256=${"0".repeat(64)}`,
    framing,
    "",
    "",
  ].join("\r\n");
}

/** A raw connection: what the server sent back, and a promise that settles when the connection is gone. */
function connect(url: URL): { socket: net.Socket; received: () => string; closed: Promise<void> } {
  const socket = net.connect(Number(url.port), url.hostname);
  let text = "";
  socket.setEncoding("latin1");
  socket.on("data", (chunk: string) => (text += chunk));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return { socket, received: () => text, closed };
}

describe("the webhook path's body limit", () => {
  it("takes a signed delivery of exactly the cap and starts its job; the same bytes wrongly signed reach the signature check", async () => {
    h = await startHarness({ script: lookScript() });
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "A large delivery" });
    const payload = issuesAssignedPayload({ ...h.gh.repoContext(OWNER, REPO), issueNumber: issue.number, assignee: h.gh.botLogin, sender: "alice" });
    // GitHub's large payloads are pushes with long file lists; padding gives an assignment the same size.
    const unpadded = JSON.stringify({ ...payload, padding: "" }).length;
    const large = { ...payload, padding: "x".repeat(MAX_WEBHOOK_BODY_BYTES - unpadded) };
    expect(JSON.stringify(large).length).toBe(MAX_WEBHOOK_BODY_BYTES);

    const forged = await sendWebhook({ url: h.webhookUrl, secret: "not-the-secret", event: "issues", payload: large });
    expect(forged.status).toBe(400);
    expect(forged.body).toMatch(/signature does not match/);

    const delivered = await sendWebhook({ url: h.webhookUrl, secret: h.gh.webhookSecret, event: "issues", payload: large });
    expect(delivered.status).toBe(200);
    await h.app.queue.idle();
    expect(sessions(h)).toBe(1);
    expect(h.gh.reactions(OWNER, REPO, { issueNumber: issue.number }).map((r) => r.content)).toEqual(["eyes"]);
  });

  it("answers 413 to a Content-Length past the cap and closes the connection without waiting for the body", async () => {
    const { harness, lines } = await startLogged({ script: [] });
    h = harness;
    const url = new URL(h.webhookUrl);
    const connection = connect(url);
    connection.socket.write(unsignedHead(url, `Content-Length: ${MAX_WEBHOOK_BODY_BYTES + 1}`));
    // No body is sent: the answer and the close can only come from the header.
    await connection.closed;
    expect(connection.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(connection.received()).toMatch(/\r\nconnection: close\r\n/i);
    expect(lines.filter((line) => line.msg === REFUSAL)).toEqual([
      expect.objectContaining({ contentLength: MAX_WEBHOOK_BODY_BYTES + 1, maxBytes: MAX_WEBHOOK_BODY_BYTES, path: url.pathname, method: "POST" }),
    ]);
  });

  it("cuts a chunked body as soon as it passes the cap", async () => {
    const { harness, lines } = await startLogged({ script: [] });
    h = harness;
    const url = new URL(h.webhookUrl);
    const connection = connect(url);
    connection.socket.write(unsignedHead(url, "Transfer-Encoding: chunked"));
    const chunk = Buffer.alloc(MiB, 0x20);
    const framed = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")]);
    const attempt = 4 * MAX_WEBHOOK_BODY_BYTES;
    let written = 0;
    let gone = false;
    void connection.closed.then(() => (gone = true));
    while (written < attempt && !gone) {
      const more = connection.socket.write(framed);
      written += chunk.length;
      if (!more) await Promise.race([new Promise((drained) => connection.socket.once("drain", drained)), connection.closed]);
    }
    await connection.closed;
    // The kernel's buffers take some bytes the server never read; the server itself stopped at the cap.
    expect(written).toBeLessThan(attempt);
    const refusals = lines.filter((line) => line.msg === REFUSAL);
    expect(refusals).toHaveLength(1);
    const received = refusals[0]!.received as number;
    expect(received).toBeGreaterThan(MAX_WEBHOOK_BODY_BYTES);
    expect(received).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES + MiB);
  });
});

describe("the server's request timeout", () => {
  // Node's default request timeout (300 s) would hold the dripped body past this test's time limit;
  // the server's own (30 s, checked every 5 s) ends it well within.
  it("ends a body dripped a byte a second, while a dashboard event stream stays open as long as its job runs", { timeout: 120_000 }, async () => {
    const token = "dashboard-token-0123456789abcdef";
    const started = gate();
    const release = gate();
    h = await startHarness({
      script: perJobScript(lookScript(), {
        hold: async () => {
          started.open();
          await release.wait();
        },
      }),
      extraEnv: { TACKLE_DASHBOARD_TOKEN: token },
    });
    const harness = h;
    const base = harness.webhookUrl.replace(/\/api\/github\/webhooks$/, "");
    const auth = { authorization: `Bearer ${token}` };
    const issue = harness.gh.addIssue({ owner: OWNER, repo: REPO, title: "Slow" });
    const assigned = issuesAssignedPayload({
      ...harness.gh.repoContext(OWNER, REPO),
      issueNumber: issue.number,
      assignee: harness.gh.botLogin,
      sender: "alice",
    });
    expect((await sendWebhook({ url: harness.webhookUrl, secret: harness.gh.webhookSecret, event: "issues", payload: assigned })).status).toBe(200);
    await started.wait();

    const list = await new Promise<string>((resolve, reject) => {
      request(`${base}/dashboard`, { headers: auth }, (res) => {
        let body = "";
        res
          .setEncoding("utf8")
          .on("data", (chunk: string) => (body += chunk))
          .on("end", () => resolve(body));
      })
        .on("error", reject)
        .end();
    });
    const link = /href="(\/dashboard\/jobs\/[^"]+)"/.exec(list)?.[1];
    expect(link).toBeDefined();
    const stream = await new Promise<IncomingMessage>((resolve, reject) => {
      request(`${base}${link}/events?cursor=0`, { headers: auth }, resolve).on("error", reject).end();
    });
    expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    let events = "";
    let streamOver = false;
    stream.setEncoding("utf8").on("data", (chunk: string) => (events += chunk));
    const streamEnded = new Promise<void>((resolve) => stream.once("close", () => resolve()));
    void streamEnded.then(() => (streamOver = true));

    const url = new URL(harness.webhookUrl);
    const drip = connect(url);
    drip.socket.write(unsignedHead(url, "Content-Length: 1000000"));
    const dripping = setInterval(() => drip.socket.write("x"), 1000);
    await drip.closed;
    clearInterval(dripping);
    expect(drip.received()).toMatch(/^HTTP\/1\.1 408 /);

    // Past the request timeout the stream is still open, and still carries the job to its end.
    expect(streamOver).toBe(false);
    release.open();
    await streamEnded;
    expect(events.trimEnd().split("\n\n").at(-1)).toMatch(/event: end\ndata: \{\}$/);
  });
});
