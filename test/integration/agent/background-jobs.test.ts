/**
 * The job's background commands and Monitors (createBackgroundJobs) over a real sandbox: output read
 * since the last read, waiting for it, exit codes and events, Monitor lines as bounded events, the
 * per-job cap, timeouts, JobStop and the end of the job.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackgroundJobs, MAX_RUNNING_JOBS, type BackgroundJobs } from "../../../src/agent/background-jobs.js";
import { createSandboxExec, detectSandbox, type Sandbox } from "../../../src/workspace/index.js";
import { removeDir, tempDir } from "../workspace/helpers.js";

const support = await detectSandbox();
const mode = support.available ? "bwrap" : "off";

/** Events taken until `count` have arrived (bounded). */
async function eventsUntil(jobs: BackgroundJobs, count: number): Promise<string[]> {
  const taken: string[] = [];
  for (let i = 0; i < 400 && taken.length < count; i += 1) {
    taken.push(...jobs.takeEvents());
    if (taken.length < count) await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return taken;
}

describe(`background jobs (${mode})`, () => {
  let root: string;
  let sandbox: Sandbox;
  let jobs: BackgroundJobs;

  beforeEach(() => {
    root = tempDir("bgjobs", { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tempDir("bgjobs-tmp", { sandboxWritable: true }) });
    jobs = createBackgroundJobs(sandbox);
  });
  afterEach(async () => {
    await jobs.stopAll();
    await sandbox.dispose();
    removeDir(root);
  });

  it("returns at once, then gives the output since the last read, waiting for it when asked", async () => {
    const job = await jobs.startBash("echo first; sleep 0.5; echo second; sleep 600", { description: "two lines" });
    expect(job).toMatchObject({ id: "job-1", kind: "bash", status: "running", exitCode: null, description: "two lines" });
    const first = await jobs.read("job-1", 10_000);
    expect(first.output).toBe("first\n");
    const second = await jobs.read("job-1", 10_000);
    expect(second.output).toBe("second\n");
    const none = await jobs.read("job-1", 0);
    expect(none.output).toBe("");
    expect(none.job.status).toBe("running");
  });

  it("says how a job ended, with its exit code, in its status and as an event", async () => {
    await jobs.startBash("echo done >&2; exit 4", {});
    const read = await jobs.read("job-1", 10_000);
    // stderr is merged into the output
    expect(read.output).toBe("done\n");
    for (let i = 0; i < 200 && jobs.list()[0]?.status === "running"; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(jobs.list()[0]).toMatchObject({ status: "exited", exitCode: 4 });
    expect(jobs.takeEvents()).toEqual(["[job-1] exited with code 4"]);
    expect(jobs.takeEvents()).toEqual([]);
  });

  it("turns a Monitor's lines into events, and stops it at max_events", async () => {
    const monitor = await jobs.startMonitor('for i in 1 2 3 4 5; do echo "event $i"; sleep 0.05; done; sleep 600', { timeoutMs: 60_000, maxEvents: 3 });
    expect(monitor.id).toBe("monitor-1");
    const events = await eventsUntil(jobs, 4);
    expect(events).toEqual(["[monitor-1] event 1", "[monitor-1] event 2", "[monitor-1] event 3", "[monitor-1] reached its max_events (3) and was stopped"]);
    expect(jobs.list()[0]).toMatchObject({ status: "stopped", events: 3 });
  });

  it("a Monitor's events read with JobOutput are not delivered again", async () => {
    await jobs.startMonitor("echo one; echo two; sleep 600", { timeoutMs: 60_000, maxEvents: 10 });
    let read = await jobs.read("monitor-1", 10_000);
    for (let i = 0; i < 100 && !read.output.includes("two"); i += 1) read = { ...read, output: read.output + (await jobs.read("monitor-1", 100)).output };
    expect(read.output).toBe("one\ntwo\n");
    expect(jobs.takeEvents()).toEqual([]);
  });

  it("redacts a Monitor line before cutting it to an event, so a secret across the cut is masked whole", async () => {
    const redacting = createBackgroundJobs(sandbox, { redact: (text) => text.replaceAll("s3cr3t-value", "[REDACTED]") });
    await redacting.startMonitor("printf 'x%.0s' $(seq 995); echo s3cr3t-value; sleep 600", { timeoutMs: 60_000, maxEvents: 1 });
    const [event] = await eventsUntil(redacting, 1);
    expect(event).toMatch(/^\[monitor-1\] x{995}\[REDA \[… 5 more characters\]$/);
    expect(event).not.toContain("s3cr");
    await redacting.stopAll();
  });

  it("kills a Monitor at its timeout and says so", async () => {
    await jobs.startMonitor("sleep 600", { timeoutMs: 300, maxEvents: 10 });
    expect(await eventsUntil(jobs, 1)).toEqual(["[monitor-1] timed out after 300 ms and was killed"]);
    expect(jobs.list()[0]?.status).toBe("timed_out");
  });

  it(`runs at most ${MAX_RUNNING_JOBS} at once, and JobStop makes room`, async () => {
    for (let i = 0; i < MAX_RUNNING_JOBS; i += 1) await jobs.startBash("sleep 600", {});
    await expect(jobs.startBash("sleep 600", {})).rejects.toThrow(`${MAX_RUNNING_JOBS} background jobs are running already`);
    const stopped = await jobs.stop("job-2");
    expect(stopped.status).toBe("stopped");
    expect(jobs.takeEvents()).toEqual(["[job-2] was stopped (JobStop)"]);
    expect((await jobs.startBash("sleep 600", {})).id).toBe(`job-${MAX_RUNNING_JOBS + 1}`);
  });

  it("names the jobs there are when asked for one that is not", async () => {
    await expect(jobs.read("job-9", 0)).rejects.toThrow('no background job "job-9"; none was started');
    await jobs.startBash("true", {});
    await expect(jobs.stop("job-9")).rejects.toThrow('no background job "job-9"; this job has job-1');
  });

  it("stopAll ends every job with the processes it started, and refuses new ones", async () => {
    await jobs.startBash("sleep 600 & sleep 600 & wait", {});
    await jobs.startMonitor("sleep 600", { timeoutMs: 60_000, maxEvents: 5 });
    expect(sandbox.running).toBe(2);
    await jobs.stopAll();
    expect(sandbox.running).toBe(0);
    expect(jobs.list().map((job) => job.status)).toEqual(["stopped", "stopped"]);
    await expect(jobs.startBash("true", {})).rejects.toThrow("the job is over");
  });

  it("keeps the newest unread output when a job prints more than it holds, and says how much was dropped", async () => {
    await jobs.startBash("head -c 200000 /dev/zero | tr '\\0' x; echo; echo tail-end", {});
    for (let i = 0; i < 200 && jobs.list()[0]?.status === "running"; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    const read = await jobs.read("job-1", 0);
    expect(read.output.endsWith("tail-end\n")).toBe(true);
    expect(read.droppedChars).toBe(200_000 + 1 + 9 - read.output.length);
    expect(read.droppedChars).toBeGreaterThan(0);
  });
});
