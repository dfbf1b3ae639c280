import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { emitterEventNames } from "@octokit/webhooks";
import { errorMessage } from "../errors/index.js";
import type { JobData } from "../jobs/index.js";
import { createLogger } from "../logging/logger.js";
import { createTackleApp, type Delivery, type JobEnd } from "./server.js";
import { terminalText } from "../util/plain-text.js";

export interface ReceiveOptions {
  /** X-GitHub-Event (`issues`), or with the payload's action (`issues.assigned`). */
  event: string;
  /** A file holding the delivery's JSON body. */
  payloadPath: string;
  /** X-GitHub-Delivery. @defaultValue a random UUID, as GitHub sends */
  deliveryId?: string;
}

/** Exit codes of `tackle receive`. */
const RECEIVE_EXIT = {
  /** The job ended done or with no changes. */
  ok: 0,
  /** The job ended otherwise (failed, cancelled, budget exhausted), or the stack could not start. */
  jobNotDone: 1,
  /** The event name or the payload file is not usable. */
  badInput: 2,
  /** The delivery started no job: not a trigger, refused, or a command that runs none. */
  noJob: 3,
} as const;

const KNOWN_EVENTS: ReadonlySet<string> = new Set(emitterEventNames);

/**
 * Reads a delivery from the command line's event name and payload text, or says what is wrong with
 * them. Pure: the caller reads the file.
 */
export function parseDelivery(options: { event: string; payloadText: string; payloadPath: string; deliveryId: string }): Delivery | { problem: string } {
  const [name = "", action] = options.event.trim().split(".", 2);
  if (!KNOWN_EVENTS.has(options.event.trim()) || name === "") {
    return { problem: `"${options.event}" is not a GitHub webhook event name (X-GitHub-Event, such as issues or issue_comment)` };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(options.payloadText);
  } catch (error) {
    return { problem: `${options.payloadPath} is not valid JSON: ${errorMessage(error)}` };
  }
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) {
    return { problem: `${options.payloadPath} does not hold a webhook payload (a JSON object)` };
  }
  const body = payload as { action?: unknown; installation?: { id?: unknown } };
  if (action !== undefined && body.action !== action) {
    return { problem: `the event is ${options.event} but the payload's action is ${JSON.stringify(body.action ?? null)}` };
  }
  if (typeof body.installation?.id !== "number") {
    return { problem: `${options.payloadPath} has no installation.id: Tackle acts as the App's installation, which GitHub names in every delivery to an App` };
  }
  return { id: options.deliveryId, name, payload };
}

/**
 * `tackle receive`: one delivery through the whole App (gate, acknowledgement, queue, job) on the
 * in-process queue, without a signature check, as `probot receive` does; waits for the job to end.
 * Returns the exit code.
 */
export async function receive(processEnv: NodeJS.ProcessEnv, options: ReceiveOptions): Promise<number> {
  let payloadText: string;
  try {
    payloadText = await readFile(options.payloadPath, "utf8");
  } catch (error) {
    console.error(`tackle receive: cannot read the payload file: ${errorMessage(error)}`);
    return RECEIVE_EXIT.badInput;
  }
  const delivery = parseDelivery({ event: options.event, payloadText, payloadPath: options.payloadPath, deliveryId: options.deliveryId ?? randomUUID() });
  if ("problem" in delivery) {
    console.error(terminalText(`tackle receive: ${delivery.problem}`));
    return RECEIVE_EXIT.badInput;
  }

  // In-process whatever REDIS_URL says: this process runs the job and waits for it.
  const env = { ...processEnv, REDIS_URL: undefined };
  const ends = new Map<string, { data: JobData; end: JobEnd }>();
  const app = await createTackleApp(env, {
    withWorker: true,
    logger: createLogger(env),
    verifiesWebhooks: false,
    onJobEnd: (data, end) => ends.set(data.jobId, { data, end }),
  });
  try {
    await app.receive(delivery);
    // Retries included: idle means no job is queued, waiting for a retry or running.
    await app.queue.idle();
  } finally {
    await app.close(0);
  }
  return report([...ends.values()]);
}

function report(ends: Array<{ data: JobData; end: JobEnd }>): number {
  if (ends.length === 0) {
    console.log("tackle receive: the delivery started no job (not a trigger for this App, refused, or a command that runs none); see the log above");
    return RECEIVE_EXIT.noJob;
  }
  let code: number = RECEIVE_EXIT.ok;
  for (const { data, end } of ends) {
    const where = `${data.repo.owner}/${data.repo.name}#${data.number}`;
    if ("error" in end) {
      console.log(terminalText(`tackle receive: job ${data.jobId} (${where}) failed: ${errorMessage(end.error)}`));
      code = RECEIVE_EXIT.jobNotDone;
      continue;
    }
    const { status, reason, pullRequestUrl } = end.outcome;
    const pr = pullRequestUrl ? ` ${pullRequestUrl}` : "";
    // The reason can carry the repository's text (a config problem quoting its `model:`): plain text only.
    console.log(terminalText(`tackle receive: job ${data.jobId} (${where}) ended ${status}${pr}${reason ? `: ${reason}` : ""}`));
    if (status !== "done" && status !== "no_changes") code = RECEIVE_EXIT.jobNotDone;
  }
  return code;
}
