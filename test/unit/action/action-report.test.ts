import { describe, expect, it } from "vitest";
import { formatActionLogLine } from "../../../src/main/action-log.js";
import { renderStepSummary } from "../../../src/main/action-report.js";
import type { JobOutcome } from "../../../src/worker/index.js";
import { masked } from "../../fakes/masked.js";

const stats = { durationMs: 83_000, turns: 7, inputTokens: 12_000, outputTokens: 900, cacheReadTokens: 30_000, costUsd: 0.04217 };

describe("renderStepSummary", () => {
  it("a finished job: outcome, pull request, turns, tokens, cost, duration and the sandbox", () => {
    const outcome: JobOutcome = { status: "done", reason: masked("the agent finished"), pullRequestUrl: "https://github.com/o/r/pull/5", stats };
    const summary = renderStepSummary({ kind: "job", outcome, issue: "o/r#4", sandbox: "Agent commands run in the bubblewrap sandbox." });
    expect(summary).toContain("## ✅ Tackle finished\n");
    // The issue reference is code: GitHub would cross-reference it from the run's page.
    expect(summary).toContain("| Issue | `o/r#4` |");
    expect(summary).toContain("| Outcome | `done`: the agent finished |");
    expect(summary).toContain("| Pull request | [https://github.com/o/r/pull/5](https://github.com/o/r/pull/5) |");
    expect(summary).toContain("| Turns | 7 |");
    expect(summary).toContain("| Tokens | 42000 input (30000 from cache) · 900 output |");
    expect(summary).toContain("| Cost | $0.0422 |");
    expect(summary).toContain("| Duration | 1m 23s |");
    expect(summary).toContain("Agent commands run in the bubblewrap sandbox.");
  });

  it("lists the job's artifacts, where a later step finds them, descriptions escaped", () => {
    const outcome: JobOutcome = {
      status: "done",
      reason: masked("the agent finished"),
      pullRequestUrl: null,
      stats,
      artifacts: [
        { id: "a1", name: masked("report.md"), description: masked("the <b>findings</b>"), bytes: 120, url: null },
        { id: "a2", name: masked("shot.png"), bytes: 5_000, url: null },
      ],
    };
    const summary = renderStepSummary({ kind: "job", outcome, issue: "o/r#4", sandbox: "" });
    expect(summary).toContain(
      "### Artifacts\n\nIn `$RUNNER_TEMP/tackle-artifacts`: publish them with a later `actions/upload-artifact` step.\n\n" +
        "- `a1-report.md` (120 bytes): the \\<b\\>findings\\</b\\>\n- `a2-shot.png` (5000 bytes)\n",
    );
    expect(renderStepSummary({ kind: "job", outcome: { ...outcome, artifacts: [] }, issue: "o/r#4", sandbox: "" })).not.toContain("Artifacts");
  });

  it("a misconfiguration: the message, no table; text from GitHub or the job cannot add markup or break a row", () => {
    expect(renderStepSummary({ kind: "failed", message: masked("GitHub rejected the token") })).toBe(
      "## ❌ Tackle could not run\n\nGitHub rejected the token\n",
    );
    const outcome: JobOutcome = { status: "failed", reason: masked("a <img src=x> | b\nnext"), pullRequestUrl: null, stats };
    const summary = renderStepSummary({ kind: "job", outcome, issue: "o/r#4", sandbox: "" });
    expect(summary).toContain("## ❌ Tackle failed");
    expect(summary).toContain("| Outcome | `failed`: a \\<img src=x\\> \\| b next |");
    expect(summary).toContain("| Pull request | none |");
  });
});

describe("formatActionLogLine", () => {
  it("one text line per pino line: level, message, the other fields; errors as their message", () => {
    const line = JSON.stringify({
      level: 40,
      time: 1,
      pid: 2,
      hostname: "h",
      name: "tackle",
      msg: "could not post",
      jobId: "j",
      err: { type: "TackleError", message: "HTTP 403", stack: "at x", code: "github_api" },
    });
    expect(formatActionLogLine(`${line}\n`)).toBe('warning: could not post {"jobId":"j","err":"HTTP 403 (github_api)"}\n');
    expect(formatActionLogLine(`${JSON.stringify({ level: 30, msg: "job started" })}\n`)).toBe("info: job started\n");
    expect(formatActionLogLine(`${line}\n`, { stacks: true })).toContain('"stack":"at x"');
    expect(formatActionLogLine("not json")).toBe("not json\n");
  });

  it("keeps a message's line breaks and escapes on its one line, so no `::` workflow command starts a line", () => {
    const hostile = "refused .github/workflows/x\n::set-output name=pull_request_url::https://evil.example\u2028::add-mask::tackle\u001b[2K";
    const printed = formatActionLogLine(`${JSON.stringify({ level: 30, msg: hostile })}\n`);
    expect(printed).toBe(
      "info: refused .github/workflows/x\\u{a}::set-output name=pull_request_url::https://evil.example\\u{2028}::add-mask::tackle\\u{1b}[2K\n",
    );
    expect(
      formatActionLogLine(`not json\n::add-mask::x\n`)
        .split("\n")
        .filter((line) => line.startsWith("::")),
    ).toEqual([]);
  });
});
