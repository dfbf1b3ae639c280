/**
 * Broken (red team of #20, second pass, background jobs): each background command keeps up to 64 000
 * characters of unread output on the host, and what a command printed stays kept after it ended
 * until JobOutput reads it. Only 4 run at once, but the ended ones are never let go: a model that
 * starts command after command (`head -c 70000 /dev/zero | tr '\0' a`, four a batch, 60 to 500 turns)
 * and never reads them made the one Tackle process, which serves every job, keep 64 000 characters
 * (128 KB as UTF-16) for each of them, gigabytes over a job. What ended commands kept is now bounded
 * across the job: the oldest ended command's unread output is dropped first, and JobOutput says how
 * many characters were dropped.
 */
import { describe, expect, it } from "vitest";
import { createBackgroundJobs } from "../../src/agent/background-jobs.js";
import type { ExecPort, StartOptions, StartedProcess } from "../../src/agent/ports.js";

/** An exec port whose every command prints `chars` characters at once and exits. */
function printingExec(chars: number): ExecPort {
  return {
    async start(_argv: readonly string[], options: StartOptions): Promise<StartedProcess> {
      let settle!: (value: { exitCode: number | null; killed: boolean }) => void;
      const exited = new Promise<{ exitCode: number | null; killed: boolean }>((resolve) => (settle = resolve));
      queueMicrotask(() => {
        options.onStdout(Buffer.alloc(chars, "a"));
        settle({ exitCode: 0, killed: false });
      });
      return { stdin: undefined, exited, stop: async () => undefined };
    },
  } as unknown as ExecPort;
}

const PER_COMMAND = 64_000;
const COMMANDS = 400;

describe("background commands that ended without being read", () => {
  it("keep a bounded amount of output on the host, the oldest dropped first and counted", async () => {
    const jobs = createBackgroundJobs(printingExec(PER_COMMAND + 6_000));
    const unreadIds: string[] = [];
    for (let i = 0; i < COMMANDS; i += 1) {
      const started = await jobs.startBash("head -c 70000 /dev/zero | tr '\\0' a", {});
      unreadIds.push(started.id);
      // Let it print and end without reading its output.
      for (let spin = 0; spin < 100 && jobs.list().find((job) => job.id === started.id)?.status === "running"; spin += 1) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    let kept = 0;
    let dropped = 0;
    for (const id of unreadIds) {
      const read = await jobs.read(id, 0);
      kept += read.output.length;
      dropped += read.droppedChars;
    }
    // Far more than four running commands may hold, far less than 400 ended ones held.
    expect(kept).toBeLessThanOrEqual(32 * PER_COMMAND);
    // What was let go is counted, so JobOutput says so.
    expect(kept + dropped).toBe(COMMANDS * (PER_COMMAND + 6_000));
  });
});
