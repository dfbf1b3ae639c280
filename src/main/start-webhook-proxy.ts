import { errorMessage } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";

export interface WebhookProxy {
  close(): void;
}

/** How long the first connection to the channel may take before `tackle server` gives up. */
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * WEBHOOK_PROXY_URL, as Probot does it: subscribe to a smee.io channel (an EventSource stream whose
 * `message` events carry a delivery's headers and body) and POST each delivery to `target`, our own
 * webhook path, where the signature is checked as for any delivery. For development: GitHub reaches a
 * laptop without a public address. smee-client is loaded only when a proxy is configured.
 */
export async function startWebhookProxy(options: { source: string; target: string; logger: Logger }): Promise<WebhookProxy> {
  const { SmeeClient } = await import("smee-client");
  const log = options.logger.child({ component: "webhook-proxy" });
  const client = new SmeeClient({
    source: options.source,
    target: options.target,
    maxConnectionTimeout: CONNECT_TIMEOUT_MS,
    logger: {
      info: (...args: unknown[]) => log.info(args.map(String).join(" ")),
      // Connection drops are retried by the EventSource; each is worth a warning, not an error.
      error: (...args: unknown[]) => log.warn(args.map((arg) => (arg instanceof Error ? arg.message : describe(arg))).join(" ")),
    },
  });
  try {
    await client.start();
  } catch (error) {
    await client.stop().catch(() => undefined);
    throw new Error(`WEBHOOK_PROXY_URL: cannot subscribe to ${options.source}: ${describe(error)}`, { cause: error });
  }
  log.info({ source: options.source, target: options.target }, "forwarding webhook deliveries from the proxy");
  return { close: () => void client.stop().catch(() => undefined) };
}

/** EventSource errors are events with a message and sometimes a code, not Errors. */
function describe(value: unknown): string {
  if (value instanceof Error) return errorMessage(value);
  if (typeof value === "object" && value !== null) {
    const { message, code } = value as { message?: unknown; code?: unknown };
    const parts = [typeof code === "number" ? `HTTP ${code}` : "", typeof message === "string" ? message : ""].filter(Boolean);
    if (parts.length > 0) return parts.join(": ");
  }
  return String(value);
}
