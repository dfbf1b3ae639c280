// A forgotten redaction fails to compile. Every sink that stores or shows free text takes `Masked`
// (src/util/redact.ts), which only the redactor makes. Each `@ts-expect-error` line below hands a sink
// text that skipped the redactor: `npm run typecheck` (CI) fails as soon as one of them compiles, that
// is, as soon as a sink stops requiring masked text. The runtime test below checks the other half: no
// module but the redactor's own makes a `Masked` by a cast.
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ArtifactInfo } from "../../../src/agent/ports.js";
import type { runAgent } from "../../../src/agent/loop.js";
import type { createSubagents } from "../../../src/agent/subagents.js";
import type { createTranscript } from "../../../src/agent/transcript.js";
import type { JobStore } from "../../../src/jobs/job-store.js";
import type { MemoryStore } from "../../../src/jobs/memory-store.js";
import { cutMasked, redactKnownTokens, type Masked } from "../../../src/util/redact.js";
import type { JobRecording, startJobRecording } from "../../../src/worker/job-recording.js";
import type { createMemoryPort } from "../../../src/worker/memory-port.js";
import type { JobOutcome } from "../../../src/worker/index.js";
import type { createTracker } from "../../../src/worker/tracker.js";
import type { StepResult } from "../../../src/main/action-report.js";

const plain: string = "text that never met the redactor";
const identity = (text: string): string => text;
const stats = { durationMs: 0, turns: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, costUsd: 0 };

/** Never called: it exists for the compiler. */
function forgottenRedactions(store: JobStore, memory: MemoryStore, recording: JobRecording): void {
  // The job store: a record's reason, transcript lines, an artifact's name, description and bytes.
  // @ts-expect-error a reason that skipped the redactor
  void store.record({ jobId: "j", reason: plain });
  // @ts-expect-error transcript lines that skipped the redactor
  void store.appendTranscript("j", [plain]);
  // @ts-expect-error an artifact name that skipped the redactor
  void store.putArtifact("j", { name: plain, contentType: "text/plain", content: undefined as never });
  // @ts-expect-error an artifact description that skipped the redactor
  void store.putArtifact("j", { name: undefined as never, description: plain, contentType: "text/plain", content: undefined as never });
  // @ts-expect-error artifact bytes that skipped the redactor
  void store.putArtifact("j", { name: undefined as never, contentType: "text/plain", content: Buffer.from(plain) });

  // What the job records of its run.
  // @ts-expect-error a transcript line that skipped the redactor
  recording.onTranscriptLine(plain);
  // @ts-expect-error an ending reason that skipped the redactor
  void recording.ended({ status: "failed", reason: plain, pullRequestUrl: null, stats });

  // Memory, which every later job of the repository reads.
  // @ts-expect-error a memory's content that skipped the redactor
  void memory.put("github.com/o/r", { name: undefined as never, description: undefined as never, content: plain, jobId: "j", actor: "a", updatedAt: "t" });
  // @ts-expect-error a memory's description that skipped the redactor
  void memory.put("github.com/o/r", { name: undefined as never, description: plain, content: undefined as never, jobId: "j", actor: "a", updatedAt: "t" });

  // The outcome: the Action's step summary, the log, the queue's record.
  // @ts-expect-error an outcome reason that skipped the redactor
  const outcome: JobOutcome = { status: "failed", reason: plain, pullRequestUrl: null, stats };
  // @ts-expect-error an artifact name shown in the summary and the tracking comment
  const artifact: ArtifactInfo = { id: "a1", name: plain, bytes: 0, url: null };
  // @ts-expect-error a step summary's failure message that skipped the redactor
  const step: StepResult = { kind: "failed", message: plain };
  // @ts-expect-error a step summary's warning (an access problem GitHub described) that skipped the redactor
  const warned: StepResult = { kind: "job", outcome: undefined as never, issue: "o/r#1", sandbox: "s", warning: plain };
  void outcome;
  void artifact;
  void step;
  void warned;

  // Cutting happens after masking, never before.
  // @ts-expect-error cutting text that was not masked
  cutMasked(plain, 10, "hint");
}

/** Never called: a sink that masks by itself cannot be given a redactor that does not mask. */
function redactorsThatDoNotMask(): void {
  type FirstMessage = Parameters<typeof runAgent>[0]["initialMessage"];
  // @ts-expect-error the model's first message, unmasked
  const first: FirstMessage = plain;
  void first;
  type TranscriptRedactor = NonNullable<Parameters<typeof createTranscript>[0]["redact"]>;
  // @ts-expect-error a transcript whose "redactor" masks nothing
  const transcript: TranscriptRedactor = identity;
  type TrackerRedactor = Parameters<typeof createTracker>[0]["redact"];
  // @ts-expect-error a tracking comment whose "redactor" masks nothing
  const tracker: TrackerRedactor = identity;
  type RecordingRedactor = Parameters<typeof startJobRecording>[0]["redact"];
  // @ts-expect-error a job store recording whose "redactor" masks nothing
  const recording: RecordingRedactor = identity;
  type MemoryRedactor = Parameters<typeof createMemoryPort>[0]["redact"];
  // @ts-expect-error a memory port whose "redactor" masks nothing
  const memory: MemoryRedactor = identity;
  type SubagentRedactor = Parameters<typeof createSubagents>[0]["redact"];
  // @ts-expect-error a subagent's first message, unmasked
  const subagent: SubagentRedactor = identity;
  void [transcript, tracker, recording, memory, subagent];
  type TrackerOptions = Parameters<typeof createTracker>[0];
  // @ts-expect-error a tracker built without the job's redactor
  const bare: TrackerOptions = { sink: { write: async () => undefined }, clock: Date.now, logger: undefined as never };
  void bare;
}

// Compiled by `npm run typecheck`, never run.
void forgottenRedactions;
void redactorsThatDoNotMask;

const SRC = path.resolve(import.meta.dirname, "../../../src");

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(entries.map((entry) => (entry.isDirectory() ? sourceFiles(path.join(dir, entry.name)) : [path.join(dir, entry.name)])));
  return nested.flat().filter((file) => file.endsWith(".ts"));
}

describe("the Masked brand", () => {
  it("is made only by the redactor's module: no other source file casts to it", async () => {
    const casts: string[] = [];
    for (const file of await sourceFiles(SRC)) {
      if (path.relative(SRC, file) === path.join("util", "redact.ts")) continue;
      const text = await readFile(file, "utf8");
      if (/\bas\s+(?:Masked|MaskedBytes|MaskedDeep)\b|\[masked\]/.test(text)) casts.push(path.relative(SRC, file));
    }
    expect(casts).toEqual([]);
  });

  it("keeps its brand through a cut, and a cut cannot bring a secret back", () => {
    const secret = `ghp_${"aB3dE6gH9k".repeat(4).slice(0, 36)}`;
    const text: Masked = redactKnownTokens(`${"x".repeat(500)} ${secret} ${"y".repeat(500)}`);
    const cut: Masked = cutMasked(text, 300, "see the transcript");
    expect(cut.length).toBeLessThan(text.length);
    expect(cut).not.toContain(secret.slice(4, 16));
  });
});
