import { describe, expect, it } from "vitest";
import type { JobData } from "../../../src/jobs/job-data.js";
import type { JobRecordUpdate, JobStore } from "../../../src/jobs/job-store.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createRedactor } from "../../../src/util/redact.js";
import { startJobRecording } from "../../../src/worker/job-recording.js";
import { masked } from "../../fakes/masked.js";

const data: JobData = {
  jobId: "octo-widgets-7-d1",
  deliveryId: "d1",
  repo: { owner: "octo", name: "widgets" },
  number: 7,
  isPullRequest: false,
  trigger: { kind: "issue_assigned", actor: "alice" },
  enqueuedAt: "2026-12-01T10:00:00.000Z",
};
const stats = { durationMs: 5_000, turns: 3, inputTokens: 100, outputTokens: 20, cacheReadTokens: 50, costUsd: 0.01 };

/** A store that records what it was asked; `failAppends` makes transcript appends reject. */
function fakeStore(options: { failAppends?: boolean } = {}) {
  const records: JobRecordUpdate[] = [];
  const appends: string[][] = [];
  const store = {
    kind: "file",
    record: async (update: JobRecordUpdate) => void records.push(update),
    appendTranscript: async (_jobId: string, lines: readonly string[]) => {
      appends.push([...lines]);
      if (options.failAppends) throw new Error("Redis is unavailable");
    },
  } as unknown as JobStore;
  return { store, records, appends };
}

const start = (store: JobStore) =>
  startJobRecording({
    store,
    data,
    attempt: 2,
    clock: () => Date.parse("2026-12-01T10:01:00.000Z"),
    log: silentLogger,
    redact: createRedactor(["hush-hush-secret"]),
    dashboardUrl: null,
  });

describe("startJobRecording", () => {
  it("records the run as running, its lines in order, and its end with the figures and the redacted reason", async () => {
    const { store, records, appends } = fakeStore();
    const recording = start(store);
    recording.onTranscriptLine(masked("1"));
    recording.onTranscriptLine(masked("2"));
    await new Promise((resolve) => setImmediate(resolve));
    recording.onTranscriptLine(masked("3"));
    await recording.ended({ status: "done", reason: masked("finished"), pullRequestUrl: "https://x/pull/1", stats });
    expect(appends.flat()).toEqual(["1", "2", "3"]);
    expect(records[0]).toEqual({
      jobId: data.jobId,
      repo: "octo/widgets",
      number: 7,
      isPullRequest: false,
      trigger: "issue_assigned",
      actor: "alice",
      enqueuedAt: data.enqueuedAt,
      status: "running",
      startedAt: "2026-12-01T10:01:00.000Z",
      attempt: 2,
    });
    expect(records[1]).toMatchObject({ status: "done", turns: 3, inputTokens: 100, costUsd: 0.01, pullRequestUrl: "https://x/pull/1", durationMs: 5_000 });
    await recording.threw(new Error("token hush-hush-secret refused"), true);
    expect(records[2]).toEqual({ jobId: data.jobId, status: "queued", reason: "token [REDACTED] refused" });
  });

  it("stops sending lines to a store that failed, so the job's end does not wait on it, and still records the end", async () => {
    const { store, records, appends } = fakeStore({ failAppends: true });
    const recording = start(store);
    recording.onTranscriptLine(masked("1"));
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 5; i++) {
      recording.onTranscriptLine(masked(`more ${i}`));
      await new Promise((resolve) => setImmediate(resolve));
    }
    await recording.ended({ status: "failed", reason: masked("x"), pullRequestUrl: null, stats });
    expect(appends).toEqual([["1"]]);
    expect(records.at(-1)).toMatchObject({ status: "failed" });
  });
});
