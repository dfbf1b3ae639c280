// The webhook path reads a delivery's whole body into memory before it checks the signature, with no
// limit. Probot's middleware (@octokit/webhooks' getPayloadFromRequestStream) pushes every chunk into an
// array and only at the end concatenates, decodes and verifies: anyone who can reach the webhook URL
// (it is public by necessity) sends `Content-Type: application/json`, the three X-GitHub-* headers with
// any signature, and then an endless body. Nothing refuses it: after 9 s the middleware answers 202
// "still processing" but keeps reading, and Node's own requestTimeout gives each connection 300 s.
// GitHub never sends more than 25 MB; here 256 MiB went in unsigned on one connection while the
// process's Buffer memory grew by about as much (measured: +256 MiB of arrayBuffers held, then the
// concatenation doubles it); a few parallel connections end the `tackle server` process, and with it
// every job it runs in-process. The webhook path should refuse a body past GitHub's cap (413, or the
// socket closed) before reading on, and never hold an unsigned body it will not accept.
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../integration/e2e/harness.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Far past GitHub's 25 MB cap on a delivery. */
const LIMIT_EXPECTED_BELOW = 64 * 1024 * 1024;
/** What the attacker tries to send. */
const ATTEMPT = 256 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20);

/**
 * Streams an unsigned delivery of `total` body bytes (a chunked body: no Content-Length to refuse on),
 * waiting for the socket to drain between chunks. Resolves with the bytes the server took before it
 * closed the connection (or all of them).
 */
function sendEndless(url: URL, total: number): Promise<{ written: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let written = 0;
    let closed = false;
    const done = () => resolve({ written, closedByServer: closed });
    socket.on("error", () => {
      closed = true;
    });
    socket.on("close", () => {
      closed = true;
      done();
    });
    socket.on("connect", async () => {
      socket.write(
        [
          `POST ${url.pathname} HTTP/1.1`,
          `Host: ${url.host}`,
          "Content-Type: application/json",
          "X-GitHub-Event: issue_comment",
          "X-GitHub-Delivery: 00000000-0000-0000-0000-000000000000",
          `X-Hub-Signature-256: sha256=${"0".repeat(64)}`,
          "Transfer-Encoding: chunked",
          "",
          "",
        ].join("\r\n"),
      );
      const header = Buffer.from(`${CHUNK.length.toString(16)}\r\n`);
      const trailer = Buffer.from("\r\n");
      while (written < total && !closed) {
        const more = socket.write(Buffer.concat([header, CHUNK, trailer]));
        written += CHUNK.length;
        if (!more) await new Promise<void>((drained) => socket.once("drain", drained).once("close", drained));
      }
      socket.destroy();
      done();
    });
  });
}

describe("an unsigned webhook delivery with an endless body", () => {
  it("is cut off near GitHub's size cap, not read into memory to the end", async () => {
    harness = await startHarness({ script: [] });
    const before = process.memoryUsage().arrayBuffers;
    const result = await sendEndless(new URL(harness.webhookUrl), ATTEMPT);
    const grown = process.memoryUsage().arrayBuffers - before;
    console.log(
      `sent ${result.written / 1024 / 1024} MiB; closed by server: ${result.closedByServer}; arrayBuffers grew ${Math.round(grown / 1024 / 1024)} MiB`,
    );
    expect(result.written).toBeLessThan(LIMIT_EXPECTED_BELOW);
  });
});
