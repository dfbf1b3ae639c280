// Broken (red team of #20, eleventh pass, GitHub Action step log): the Action prints the job's outcome
// as one log line, `core.info(\`tackle: ${status}: ${reason}\`)` (src/main/action-report.ts ›
// reportStep). `core.info` writes the text to stdout as is, and the runner reads every stdout line that
// starts with `::` as a workflow command. The reason carries the agent's own text: a refused push says
// "nothing was published: the change touches the protected path <path>", and the path comes from the
// agent's commit, read with `diff-tree -z` (raw bytes: a newline in a file name is kept). A commit adding
// `.github/workflows/x\n::set-output name=pull_request_url::https://evil.example/pr\n::add-mask::tackle\n`
// made the step print three lines: the runner would take the second as setting the step's
// `pull_request_url` output (read by the workflow's later steps) and the third as masking "tackle" in
// the rest of the log. Measured: stdout lines starting with `::` that Tackle did not write.
// What should hold: text from the job reaches the step's log only as data: no line break in it starts a
// new stdout line (or the log is fenced with `::stop-commands::<random>`), so only Tackle's own
// `::error::` (core.setFailed, which escapes its text) is a workflow command.
// Fixed: every line the Action prints goes through src/util/plain-text.ts › oneLogLine (line breaks shown as ⏎, controls dropped): reportStep, the pino destination, the setup lines.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChangedPath } from "../../src/agent/ports.js";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import { reportStep } from "../../src/main/action-report.js";
import type { JobOutcome } from "../../src/worker/index.js";
import { masked } from "../fakes/masked.js";

const stats = { durationMs: 1_000, turns: 3, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, costUsd: 0 };
const HOSTILE_PATH = ".github/workflows/x\n::set-output name=pull_request_url::https://evil.example/pr\n::add-mask::tackle\n.yml";

describe("the Action's step log, with a line break in the job's reason", () => {
  let dir: string;
  let saved: { output: string | undefined; summary: string | undefined; exitCode: typeof process.exitCode };
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), "tackle-action-log-"));
    saved = { output: process.env.GITHUB_OUTPUT, summary: process.env.GITHUB_STEP_SUMMARY, exitCode: process.exitCode };
    const output = path.join(dir, "output");
    writeFileSync(output, "");
    process.env.GITHUB_OUTPUT = output;
    delete process.env.GITHUB_STEP_SUMMARY;
  });
  afterEach(() => {
    if (saved.output === undefined) delete process.env.GITHUB_OUTPUT;
    else process.env.GITHUB_OUTPUT = saved.output;
    if (saved.summary !== undefined) process.env.GITHUB_STEP_SUMMARY = saved.summary;
    process.exitCode = saved.exitCode;
    vi.restoreAllMocks();
    rmSync(dir, { recursive: true, force: true });
  });

  it("prints no workflow command that the agent's file name wrote", async () => {
    const entry: ChangedPath = { path: HOSTILE_PATH, status: "A", oldMode: "000000", newMode: "100644", lines: 1, bytes: 4, addedBytes: 4 };
    const verdict = checkPublishedChange(
      {},
      { from: "a".repeat(40), sha: "b".repeat(40), files: [entry], commitFiles: [], commits: 1, lines: 1, addedBytes: 4, symlinks: null },
    );
    expect(verdict.action).toBe("refuse");
    const refused = verdict.action === "refuse" ? verdict.reason : "";
    // src/worker/run-and-publish.ts: a refused push ends the job failed with this reason (masked by processJob).
    const outcome: JobOutcome = { status: "failed", reason: masked(`nothing was published: ${refused}`), pullRequestUrl: null, stats };

    const written: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation(((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stdout.write);
    await reportStep({ kind: "job", outcome, issue: "o/r#4", sandbox: "sandboxed" });
    vi.restoreAllMocks();

    const commands = written
      .join("")
      .split(/\r?\n/)
      .filter((line) => line.startsWith("::"));
    // Tackle's own: the failure annotation, its text escaped by the toolkit (%0A for a line break).
    const foreign = commands.filter((line) => !line.startsWith("::error::"));
    expect(foreign).toEqual([]);
  });
});
