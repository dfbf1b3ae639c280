// The command a repository renamed with `trigger.phrase` is the one its comments advertise: the
// tracking comment's stop hint while the job works, and a dead job's retry hint.
import { afterEach, describe, expect, it } from "vitest";
import { processJob, reportDeadJob } from "../../../src/worker/index.js";
import { OWNER, REPO, startJobWorld, type JobWorld } from "./harness.js";
import { gate } from "./script-helpers.js";

let world: JobWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("the repository's command name in the comments", () => {
  it("trigger.phrase: robot → the working comment says /robot stop, a dead job says /robot retry", async () => {
    const held = gate();
    world = await startJobWorld(
      async () => {
        await held.wait();
        return { content: [{ type: "tool_use", name: "task_done", input: { summary: "Nothing to do." } }], stop_reason: "tool_use" };
      },
      { files: { ".github/tackle.yml": "trigger:\n  phrase: robot\n" } },
    );
    const { gh, data, deps } = world;
    const tracking = () => gh.comments(OWNER, REPO, data.number).find((c) => c.body.includes("tackle:tracking"))?.body ?? "";
    const job = processJob(data, deps, new AbortController().signal);
    await expect.poll(tracking, { timeout: 30_000 }).toContain("`/robot stop`");
    expect(tracking()).not.toContain("/tackle");
    held.open();
    await job;

    await reportDeadJob(data, deps, "job stalled more than allowable limit");
    expect(tracking()).toContain("`/robot retry`");
    expect(tracking()).not.toContain("/tackle");
  }, 60_000);
});
