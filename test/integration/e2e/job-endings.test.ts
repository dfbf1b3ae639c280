// processJob's endings that the queue depends on: a model outage is retried (work kept, same comment)
// until the last attempt, and a job the queue gave up on still gets its final word.
import { afterEach, describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import type { JobData } from "../../../src/jobs/index.js";
import { processJob, reportDeadJob, type ProcessJobDeps } from "../../../src/worker/index.js";
import { renderTrackingComment } from "../../../src/worker/tracking-comment.js";
import type { FakeGitHub } from "../../fakes/index.js";
import { OWNER, REPO, startJobWorld, type JobWorld } from "./harness.js";

let world: JobWorld | undefined;
let gh: FakeGitHub | undefined;
afterEach(async () => {
  await world?.close();
  world = gh = undefined;
});

async function setup(script: Parameters<typeof startJobWorld>[0]): Promise<{ deps: ProcessJobDeps; data: JobData }> {
  // No SDK retries: each attempt meets the outage once.
  world = await startJobWorld(script, { modelRetries: 0 });
  gh = world.gh;
  return { deps: world.deps, data: world.data };
}

const outage = { error: { status: 500, type: "api_error", message: "Internal server error" } } as const;
const trackingComments = () => gh!.comments(OWNER, REPO, 1).filter((c) => c.body.includes("tackle:tracking"));

describe("job endings", () => {
  it("a model outage is retried while attempts remain, editing one tracking comment, then fails for good", async () => {
    const { deps, data } = await setup([outage, outage]);
    const controller = new AbortController();
    const first = await processJob(data, deps, controller.signal, { attempt: 1, maxAttempts: 2 }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isTackleError(first) && first.retryable).toBe(true);
    expect(trackingComments()).toHaveLength(1);
    expect(trackingComments()[0]!.body).toMatch(/attempt 1 of 2; will retry/);

    const last = await processJob(data, deps, controller.signal, { attempt: 2, maxAttempts: 2 });
    expect(last.status).toBe("failed");
    const comments = trackingComments();
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain("Tackle failed");
    expect(comments[0]!.body).not.toMatch(/will retry/);
  });

  it("a job the queue gave up on gets a final edit of its tracking comment with the way to restart it", async () => {
    const { deps, data } = await setup([]);
    const body = renderTrackingComment({ phase: "working", step: "running tests", todos: [], startedAt: Date.now() }, data.jobId);
    const created = gh!.addComment({ owner: OWNER, repo: REPO, issueNumber: data.number, body, user: gh!.botLogin });
    await reportDeadJob(data, deps, "job stalled more than allowable limit");
    const comments = trackingComments();
    expect(comments).toHaveLength(1);
    expect(comments[0]!.id).toBe(created.id);
    expect(comments[0]!.body).toContain("Tackle failed");
    expect(comments[0]!.body).toContain("/tackle retry");
  });
});
