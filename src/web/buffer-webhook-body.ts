import type http from "node:http";
import type { Logger } from "../logging/logger.js";

/**
 * The largest request body Tackle reads for Probot's webhook middleware. GitHub does not deliver a
 * larger payload: "Payloads are capped at 25 MB. If an event generates a larger payload, GitHub will
 * not deliver a payload for that webhook event."
 * (https://docs.github.com/en/webhooks/webhook-events-and-payloads#payload-cap). Counted as MiB, the
 * larger reading of "MB", so a delivery at GitHub's cap is never refused.
 */
export const MAX_WEBHOOK_BODY_BYTES = 25 * 1024 * 1024;

/**
 * The most webhook body bytes the process holds at once, over all requests being read: the cap per
 * request bounds none of them together (16 unfinished unsigned bodies of 23 MiB held 372 MiB; 200
 * would end the process). Room for one delivery at GitHub's cap beside others; past it, a request is
 * refused with 503 and the connection closed.
 */
export const MAX_WEBHOOK_BYTES_IN_FLIGHT = 2 * MAX_WEBHOOK_BODY_BYTES;

/** Body bytes of the requests being read now, in this process. */
let inFlight = 0;

/** The webhook body bytes this process holds now for requests it is still reading. */
export function webhookBodyBytesInFlight(): number {
  return inFlight;
}

export interface BufferWebhookBodyOptions {
  logger: Logger;
  /** @defaultValue MAX_WEBHOOK_BODY_BYTES */
  maxBytes?: number;
}

/**
 * Reads a request's body before Probot's webhook middleware sees the request. Left to itself, the
 * middleware (@octokit/webhooks) reads the whole body into memory before it checks the signature,
 * with no limit, so anyone who can reach the public webhook URL could grow the process without
 * bound. A body past the cap is refused with 413 and the connection closed: at once when its
 * Content-Length says so, else as soon as the streamed bytes pass the cap (a chunked body).
 *
 * Resolves true when the body is on the request where @octokit/webhooks and Probot take a body that
 * was already read (`rawBody` bytes beside an object `body`, as `express.json({ verify })` or Google
 * Cloud Functions leave it; see octokit/webhooks.js#1081): the middleware then decodes and verifies
 * those bytes exactly as it would have read them. Resolves false when the request was refused or the
 * client went away; there is nothing left to answer then.
 */
export function bufferWebhookBody(req: http.IncomingMessage, res: http.ServerResponse, options: BufferWebhookBodyOptions): Promise<boolean> {
  const maxBytes = options.maxBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) {
    refuse(req, res, { contentLength: Number(declared), maxBytes }, options.logger);
    return Promise.resolve(false);
  }
  return new Promise<boolean>((resolve) => {
    let chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      inFlight += chunk.length;
      if (received <= maxBytes && inFlight <= MAX_WEBHOOK_BYTES_IN_FLIGHT) {
        chunks.push(chunk);
        return;
      }
      detach();
      chunks = [];
      // Paused, nothing more is taken off the socket; the answer's `Connection: close` ends it.
      req.pause();
      if (received > maxBytes) refuse(req, res, { received, maxBytes }, options.logger);
      else refuseBusy(req, res, options.logger);
      resolve(false);
    };
    const onEnd = (): void => {
      detach();
      Object.assign(req, { rawBody: Buffer.concat(chunks, received), body: {} });
      resolve(true);
    };
    const onGone = (): void => {
      detach();
      chunks = [];
      resolve(false);
    };
    // Once read, refused or gone, the request's bytes no longer count as being read.
    const detach = (): void => {
      inFlight -= received;
      req.off("data", onData).off("end", onEnd).off("error", onGone).off("close", onGone);
    };
    req.on("data", onData).on("end", onEnd).on("error", onGone).on("close", onGone);
  });
}

function refuseBusy(req: http.IncomingMessage, res: http.ServerResponse, logger: Logger): void {
  logger.warn(
    { remote: req.socket.remoteAddress, method: req.method, path: (req.url ?? "").split("?")[0], inFlight, maxInFlight: MAX_WEBHOOK_BYTES_IN_FLIGHT },
    "webhook: refused a request body while others fill the bytes read at once (503, connection closed)",
  );
  res
    .writeHead(503, { "content-type": "application/json", connection: "close", "retry-after": "30" })
    .end(JSON.stringify({ error: "Too many webhook bodies are being read at once; try again" }));
}

function refuse(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  size: { contentLength?: number; received?: number; maxBytes: number },
  logger: Logger,
): void {
  logger.warn(
    { remote: req.socket.remoteAddress, method: req.method, path: (req.url ?? "").split("?")[0], ...size },
    "webhook: refused a request body larger than GitHub's 25 MB payload cap (413, connection closed)",
  );
  res
    .writeHead(413, { "content-type": "application/json", connection: "close" })
    .end(JSON.stringify({ error: `Request body larger than ${size.maxBytes} bytes (GitHub's cap on a webhook payload)` }));
}
