import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../../src/logging/logger.js";
import { createRedactor } from "../../../src/util/redact.js";
import { type CommentWriter, commentSink, createTracker } from "../../../src/worker/tracker.js";
import type { TrackingState } from "../../../src/worker/tracking-comment.js";
import { redactKnownTokens } from "../../../src/util/redact.js";

const working = (step: string): TrackingState => ({ phase: "working", step, todos: [], startedAt: 0 });
const done: TrackingState = {
  phase: "done",
  reason: "done",
  summary: "all good",
  stats: { durationMs: 1_000, turns: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, costUsd: 0 },
};

/** Records each body with the fake clock's time; `fail` makes the next writes reject. */
function recordingSink() {
  const writes: Array<{ at: number; body: string }> = [];
  let failures = 0;
  const sink: CommentWriter = {
    async write(body) {
      if (failures > 0) {
        failures -= 1;
        throw Object.assign(new Error("Server Error"), { status: 502 });
      }
      writes.push({ at: Date.now(), body });
      return 1;
    },
  };
  return {
    sink,
    writes,
    failNext: (n: number) => {
      failures = n;
    },
  };
}

const stepOf = (body: string): string | undefined => /Current step: (.*)/.exec(body)?.[1];

describe("createTracker", () => {
  // The real logger, writing its JSON lines here.
  const warnings: string[] = [];
  const logger = createLogger({ LOG_LEVEL: "warn" } as NodeJS.ProcessEnv, {
    write: (line: string) => void warnings.push((JSON.parse(line) as { msg: string }).msg),
  });
  beforeEach(() => {
    vi.useFakeTimers({ now: 10_000 });
    warnings.length = 0;
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const tracker = (comment: CommentWriter, options: { commandName?: string | null } = {}) =>
    createTracker({
      sink: commentSink(comment, { jobId: "j-1", clock: () => Date.now(), ...options }),
      clock: () => Date.now(),
      logger,
      minIntervalMs: 3_000,
      redact: redactKnownTokens,
    });

  it("writes the first update at once, then at most one edit per interval, with the newest state", async () => {
    const { sink, writes } = recordingSink();
    const t = tracker(sink);
    t.update(working("one"));
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.map((w) => [w.at, stepOf(w.body)])).toEqual([[10_000, "one"]]);

    await vi.advanceTimersByTimeAsync(500);
    t.update(working("two"));
    t.update(working("three"));
    await vi.advanceTimersByTimeAsync(1_000);
    t.update(working("four"));
    await vi.advanceTimersByTimeAsync(1_499);
    expect(writes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    // Two and three were superseded before their turn came.
    expect(writes.map((w) => [w.at, stepOf(w.body)])).toEqual([
      [10_000, "one"],
      [13_000, "four"],
    ]);

    // Quiet for longer than the interval: the next update goes out at once.
    await vi.advanceTimersByTimeAsync(10_000);
    t.update(working("five"));
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.at(-1)).toEqual({ at: 23_000, body: expect.stringContaining("Current step: five") });
  });

  it("flush writes the final state at once and drops the queued update", async () => {
    const { sink, writes } = recordingSink();
    const t = tracker(sink);
    t.update(working("one"));
    await vi.advanceTimersByTimeAsync(0);
    t.update(working("queued behind the interval"));
    await t.flush(done);
    expect(writes.map((w) => w.at)).toEqual([10_000, 10_000]);
    expect(writes[1]!.body).toContain("**✅ Tackle finished**");
    await vi.advanceTimersByTimeAsync(60_000);
    expect(writes).toHaveLength(2);
  });

  it("writes in order: a flush waits for the edit in flight", async () => {
    const order: string[] = [];
    let finishFirst!: () => void;
    const sink: CommentWriter = {
      write: (body) => {
        const name = stepOf(body) ?? "final";
        order.push(`start ${name}`);
        if (name !== "one") {
          order.push(`end ${name}`);
          return Promise.resolve(1);
        }
        return new Promise<number>((resolve) => {
          finishFirst = () => {
            order.push("end one");
            resolve(1);
          };
        });
      },
    };
    const t = tracker(sink);
    t.update(working("one"));
    await vi.advanceTimersByTimeAsync(0);
    const flushed = t.flush(done);
    await vi.advanceTimersByTimeAsync(100);
    expect(order).toEqual(["start one"]);
    finishFirst();
    await flushed;
    expect(order).toEqual(["start one", "end one", "start final", "end final"]);
  });

  it("a failed edit is logged, never thrown, and the next state tries again", async () => {
    const { sink, writes, failNext } = recordingSink();
    const t = tracker(sink);
    failNext(1);
    t.update(working("lost"));
    await vi.advanceTimersByTimeAsync(0);
    expect(writes).toHaveLength(0);
    expect(warnings).toEqual(["tracking comment update failed"]);
    // A failed write does not count as one: the next update is not held back by it.
    t.update(working("next"));
    await vi.advanceTimersByTimeAsync(0);
    expect(writes.map((w) => stepOf(w.body))).toEqual(["next"]);

    failNext(1);
    await expect(t.flush(done)).resolves.toBeUndefined();
    expect(warnings).toHaveLength(2);
    await t.flush(done);
    expect(writes.at(-1)!.body).toContain("Tackle finished");
  });

  it("renders with the job's marker and its command name (default tackle; none for null)", async () => {
    const byDefault = recordingSink();
    await tracker(byDefault.sink).flush(working("x"));
    expect(byDefault.writes[0]!.body.startsWith("<!-- tackle:tracking job=j-1 -->")).toBe(true);
    expect(byDefault.writes[0]!.body).toContain("`/tackle stop`");

    const renamed = recordingSink();
    await tracker(renamed.sink, { commandName: "robot" }).flush(working("x"));
    expect(renamed.writes[0]!.body).toContain("`/robot stop`");

    const inAction = recordingSink();
    await tracker(inAction.sink, { commandName: null }).flush(working("x"));
    expect(inAction.writes[0]!.body).not.toContain("stop");
  });
});

describe("createTracker with the job's redactor", () => {
  // An opaque key (no token shape): only its value can find it, and only while it is whole.
  const SECRET = "opaque-key-7f3a9c1e5b2d4086";
  const redact = createRedactor([SECRET]);

  it("masks each text before rendering cuts it, so a secret the cut would split never shows in part", async () => {
    const { sink, writes } = recordingSink();
    const tracker = createTracker({
      sink: commentSink(sink, { jobId: "job-1", clock: () => 0 }),
      clock: () => 0,
      logger: createLogger({ LOG_LEVEL: "silent" }),
      redact,
    });
    // The summary is cut in its middle (20 000 characters kept) and a subagent's description at 120:
    // each puts the secret across its cut.
    const half = "x".repeat(10_000 - 12);
    const summary = `${half}${SECRET}${"y".repeat(30_000)}${SECRET.slice(0, 5)}${half}`;
    await tracker.flush({
      ...done,
      summary,
      reason: `${"r".repeat(1_990)}${SECRET}`,
      subagents: [{ path: "main/1/1", depth: 1, type: "explore", description: `${"d".repeat(110)}${SECRET}`, status: "done", turns: 1, costUsd: 0 }],
    });
    const body = writes.at(-1)!.body;
    for (let length = 6; length <= SECRET.length; length++) {
      for (let start = 0; start + length <= SECRET.length; start++) expect(body).not.toContain(SECRET.slice(start, start + length));
    }
    expect(body).toContain("[REDACTED]");
  });
});

describe("a sink that reads the state (local runs)", () => {
  it("receives each state masked, as data, never Markdown", async () => {
    const SECRET = "opaque-key-5c1e9a7b3d2f";
    const seen: unknown[] = [];
    const tracker = createTracker({
      sink: { write: async (state) => void seen.push(state) },
      clock: () => 0,
      logger: createLogger({ LOG_LEVEL: "silent" }),
      minIntervalMs: 0,
      redact: createRedactor([SECRET]),
    });
    await tracker.flush(working(`reading ${SECRET}`));
    await tracker.flush(done);
    expect(seen).toEqual([{ ...working("reading [REDACTED]") }, done]);
  });
});
