// A Monitor keeps the part of a line not yet ended (`partial`) and, for every chunk that arrives,
// joins it to the chunk and splits the whole again. A Monitor that prints one endless line (no
// newline) made the host keep all of it, up to the 256 MiB output ceiling per process (four at once
// per job, all in the server's or worker's one process), and re-scan it for every 64 KiB chunk: a
// quadratic amount of work on the event loop every other job shares. Only the first 1 000 characters
// of a line ever become an event.
//
// Suggested fix: keep at most MAX_EVENT_CHARS of an unfinished line (count the rest, as the event says
// "[… N more characters]"), and look for "\n" in the new chunk only.
import { runInNewContext } from "node:vm";
import { setFlagsFromString } from "node:v8";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createBackgroundJobs, type BackgroundJobs } from "../../src/agent/background-jobs.js";
import { createSandboxExec, detectSandbox, type Sandbox } from "../../src/workspace/index.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";

const support = await detectSandbox();
const mode = support.available ? "bwrap" : "off";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** Heap in use after a full collection: what is really kept. */
function heapKept(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const LINE_BYTES = 16 * 1024 * 1024;

describe(`a Monitor printing one endless line (${mode})`, () => {
  let root: string;
  let tmp: string;
  let sandbox: Sandbox;
  let jobs: BackgroundJobs;

  beforeEach(() => {
    root = tempDir("monitor-line", { sandboxWritable: true });
    tmp = tempDir("monitor-line-tmp", { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap", tmpDir: tmp });
    jobs = createBackgroundJobs(sandbox);
  });
  afterEach(async () => {
    await jobs.stopAll();
    await sandbox.dispose();
    removeDir(root);
    removeDir(tmp);
  });

  it("does not keep the unfinished line on the host beyond what an event can show", async () => {
    const before = heapKept();
    // The pipe holds 64 KiB: `sent` appears only once the host has taken all but that much of the line.
    await jobs.startMonitor(`head -c ${LINE_BYTES} /dev/zero | tr '\\0' a; touch sent; exec sleep 600`, { timeoutMs: 600_000, maxEvents: 20 });
    for (let i = 0; i < 2_400 && !existsSync(path.join(root, "sent")); i += 1) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(path.join(root, "sent"))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const kept = heapKept() - before;
    expect(jobs.list()[0]).toMatchObject({ status: "running", events: 0 });
    // An event shows 1 000 characters of a line; allow far more than that for everything else.
    expect(kept).toBeLessThan(LINE_BYTES / 4);
  });
});
