import { describe, expect, it } from "vitest";
import { MAX_TRACKING_COMMENT_CHARS, renderTrackingComment, trackingMarker, type JobStats, type TrackingState } from "../../../src/worker/tracking-comment.js";
import { masked } from "../../fakes/masked.js";

const JOB = "octo-widgets-7-delivery-1";
const MARKER = "<!-- tackle:tracking job=octo-widgets-7-delivery-1 -->";
const START = 1_000_000;
const stats: JobStats = { durationMs: 125_400, turns: 9, inputTokens: 8_000, outputTokens: 2_345, cacheReadTokens: 40_000, costUsd: 0.4567 };
const STATS_LINE = "<sub>2m 5s · 9 turns · 48.0k input / 2345 output tokens · $0.46</sub>";

const final = (
  phase: Extract<TrackingState, { stats: JobStats }>["phase"],
  extra: Partial<Extract<TrackingState, { stats: JobStats }>> = {},
): TrackingState => ({
  phase,
  reason: "the reason",
  stats,
  ...extra,
});

describe("renderTrackingComment", () => {
  it("marks the comment with the job id, so a rerun finds it", () => {
    expect(trackingMarker(JOB)).toBe(MARKER);
  });

  it("queued: first in line, and behind others", () => {
    expect(renderTrackingComment({ phase: "queued", position: 1 }, JOB)).toBe(`${MARKER}\n⏳ **Tackle** has queued this job; it starts shortly.`);
    expect(renderTrackingComment({ phase: "queued", position: 3 }, JOB)).toBe(`${MARKER}\n⏳ **Tackle** has queued this job: position 3 in the queue.`);
  });

  it("working without todos: the step, the elapsed time and how to stop", () => {
    const state: TrackingState = { phase: "working", step: "preparing the workspace", todos: [], startedAt: START };
    expect(renderTrackingComment(state, JOB, START + 42_400)).toBe(
      [MARKER, "🛠️ **Tackle is working on this** (42s so far)", "", "Current step: preparing the workspace", "", "_Comment `/tackle stop` to cancel._"].join(
        "\n",
      ),
    );
  });

  it("working with todos: a live checklist, the current one in bold", () => {
    const state: TrackingState = {
      phase: "working",
      step: "turn 3",
      startedAt: START,
      todos: [
        { content: "Read the issue", status: "completed" },
        { content: "Fix the conversion", status: "in_progress" },
        { content: "Run the tests", status: "pending" },
      ],
    };
    expect(renderTrackingComment(state, JOB, START + 61_000)).toBe(
      [
        MARKER,
        "🛠️ **Tackle is working on this** (1m 1s so far)",
        "",
        "Current step: turn 3",
        "",
        "- [x] Read the issue",
        "- [ ] **Fix the conversion** (in progress)",
        "- [ ] Run the tests",
        "",
        "_Comment `/tackle stop` to cancel._",
      ].join("\n"),
    );
  });

  it("working: a custom command name is the one advertised; null (the Action) advertises none", () => {
    const state: TrackingState = { phase: "working", step: "turn 1", todos: [], startedAt: START };
    expect(renderTrackingComment(state, JOB, START, "robot")).toContain("_Comment `/robot stop` to cancel._");
    expect(renderTrackingComment(state, JOB, START, "robot")).not.toContain("/tackle");
    const inAction = renderTrackingComment(state, JOB, START, null);
    expect(inAction).not.toContain("stop");
    expect(inAction.endsWith("Current step: turn 1")).toBe(true);
  });

  it("working unsandboxed: says so, before the stop hint", () => {
    const state: TrackingState = { phase: "working", step: "turn 1", todos: [], startedAt: START, unsandboxed: true };
    expect(renderTrackingComment(state, JOB, START)).toBe(
      [
        MARKER,
        "🛠️ **Tackle is working on this** (0s so far)",
        "",
        "Current step: turn 1",
        "",
        "⚠️ This job runs without a sandbox (`TACKLE_SANDBOX=off`).",
        "",
        "_Comment `/tackle stop` to cancel._",
      ].join("\n"),
    );
  });

  it("done: the PR, the summary and the stats; no reason", () => {
    const state = final("done", { pullRequestUrl: "https://github.com/octo/widgets/pull/8", summary: "  Fixed the offset.\n" });
    expect(renderTrackingComment(state, JOB)).toBe(
      [MARKER, "**✅ Tackle finished**", "", "Pull request: https://github.com/octo/widgets/pull/8", "", "> Fixed the offset.", "", STATS_LINE].join("\n"),
    );
  });

  it("no_changes: the reason, no PR line when there is none", () => {
    const state = final("no_changes", { pullRequestUrl: null, reason: "the code already does this" });
    expect(renderTrackingComment(state, JOB)).toBe(
      [MARKER, "**✅ Tackle finished: no changes needed**", "", "Reason: the code already does this", "", STATS_LINE].join("\n"),
    );
  });

  it("failed: the reason and what was kept", () => {
    const state = final("failed", { reason: "the model API failed 5 times", kept: "branch tackle/issue-7 with 2 commits" });
    expect(renderTrackingComment(state, JOB)).toBe(
      [MARKER, "**❌ Tackle failed**", "", "Reason: the model API failed 5 times", "", "Kept: branch tackle/issue-7 with 2 commits", "", STATS_LINE].join("\n"),
    );
  });

  it("cancelled and budget_exhausted: their own titles, with the reason", () => {
    expect(renderTrackingComment(final("cancelled", { reason: "stopped by alice" }), JOB)).toBe(
      [MARKER, "**⏹️ Tackle was stopped**", "", "Reason: stopped by alice", "", STATS_LINE].join("\n"),
    );
    expect(renderTrackingComment(final("budget_exhausted", { reason: "30 turns used" }), JOB)).toBe(
      [MARKER, "**⚠️ Tackle ran out of budget**", "", "Reason: 30 turns used", "", STATS_LINE].join("\n"),
    );
  });

  it("a final state of an unsandboxed job says so under the stats", () => {
    const body = renderTrackingComment(final("done", { unsandboxed: true }), JOB);
    expect(body.endsWith(`${STATS_LINE}\n\n⚠️ This job ran without a sandbox (\`TACKLE_SANDBOX=off\`).`)).toBe(true);
  });

  it("small numbers: seconds only, tokens in full, cents", () => {
    const small: JobStats = { durationMs: 4_400, turns: 1, inputTokens: 900, outputTokens: 12, cacheReadTokens: 0, costUsd: 0.004 };
    expect(
      renderTrackingComment(final("done", { stats: small }), JOB)
        .split("\n")
        .at(-1),
    ).toBe("<sub>4s · 1 turns · 900 input / 12 output tokens · $0.00</sub>");
  });

  it("a very long summary stays under GitHub's 65,536 characters, keeping the marker and the stats", () => {
    const summary = Array.from({ length: 5_000 }, (_, i) => `line ${i} of a summary that goes on and on`).join("\n");
    const body = renderTrackingComment(final("done", { summary, pullRequestUrl: "https://github.com/octo/widgets/pull/8" }), JOB);
    expect(summary.length).toBeGreaterThan(65_536);
    expect(body.length).toBeLessThanOrEqual(MAX_TRACKING_COMMENT_CHARS);
    expect(body.startsWith(`${MARKER}\n**✅ Tackle finished**`)).toBe(true);
    expect(body.endsWith(STATS_LINE)).toBe(true);
    expect(body).toContain("line 0 of a summary");
    expect(body).toContain("line 4999 of a summary");
    expect(body).toMatch(/characters \(\d+ lines\) omitted from the middle; the summary was cut/);
  });

  it("a very long todo list stays under the limit too", () => {
    const todos = Array.from({ length: 2_000 }, (_, i) => ({ content: `step ${i} `.repeat(10), status: "pending" as const }));
    const body = renderTrackingComment({ phase: "working", step: "turn 2", todos, startedAt: START }, JOB, START);
    expect(body.length).toBeLessThanOrEqual(MAX_TRACKING_COMMENT_CHARS);
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body.endsWith("_Comment `/tackle stop` to cancel._")).toBe(true);
  });

  it("nests subagents by depth while working, and lists them and the memory writes at the end", () => {
    const subagents = [
      { path: "main/1/1", depth: 1, type: "explore", description: "find the\nparser", status: "done" as const, turns: 3, costUsd: 0.0123 },
      { path: "main/2/1", depth: 1, type: "reviewer", description: "review", status: "running" as const, turns: 1, costUsd: 0 },
      { path: "main/2/1/1/1", depth: 2, type: "explore", description: "find tests", status: "failed" as const, turns: 25, costUsd: 0.2 },
    ];
    const working = renderTrackingComment({ phase: "working", step: "Task review", todos: [], startedAt: START, subagents }, JOB, START);
    expect(working).toContain(
      [
        "Subagents:",
        "- ✅ `explore`: find the parser (3 turns, $0.01)",
        "- 🔄 `reviewer`: review (1 turn)",
        "  - ⚠️ `explore`: find tests (25 turns, $0.20)",
      ].join("\n"),
    );
    const body = renderTrackingComment(
      final("done", {
        subagents,
        memoryWrites: [{ action: "saved", name: "test-cmd", description: "how to run the tests" }],
        stats: { ...stats, subagentTurns: 29 },
      }),
      JOB,
    );
    expect(body).toContain("Subagents:\n- ✅ `explore`");
    expect(body).toContain("Memory written for later jobs:\n- saved `test-cmd`: how to run the tests");
    expect(body).toMatch(/ turns \(\+29 in subagents\) · /);
  });

  it("counts the calls repository hooks denied, by tool", () => {
    const body = renderTrackingComment(final("done", { hookDenials: ["Bash", "Edit", "Bash"] }), JOB);
    expect(body).toContain("Hooks denied 3 tool calls: `Bash` ×2, `Edit`.");
    expect(renderTrackingComment(final("done", { hookDenials: ["Bash"] }), JOB)).toContain("Hooks denied 1 tool call: `Bash`.");
    expect(renderTrackingComment(final("done", {}), JOB)).not.toContain("Hooks denied");
  });

  it("lists the background commands as inline code that keeps their backticks and mentions inert", () => {
    const body = renderTrackingComment(
      final("done", { backgroundJobs: ["job-1: exited with code 0 after 3s: npm run dev", "job-2: stopped after 9s: echo `whoami` @octocat"] }),
      JOB,
    );
    expect(body).toContain("Background commands:\n- `job-1: exited with code 0 after 3s: npm run dev`\n- ``job-2: stopped after 9s: echo `whoami` @octocat``");
    expect(renderTrackingComment(final("done", {}), JOB)).not.toContain("Background commands");
  });

  it("counts the MCP calls by server and tool", () => {
    const body = renderTrackingComment(
      final("done", {
        mcpUsage: [
          {
            server: "docs",
            tools: [
              { name: "search", calls: 2 },
              { name: "fetch", calls: 1 },
            ],
          },
          { server: "local", tools: [{ name: "tool_01", calls: 1 }] },
        ],
      }),
      JOB,
    );
    expect(body).toContain("MCP servers used: `docs` (3 calls: `search` ×2, `fetch`), `local` (1 call: `tool_01`).");
    expect(renderTrackingComment(final("done", {}), JOB)).not.toContain("MCP servers used");
  });

  it("names the MCP servers the job could not use, one line each", () => {
    const body = renderTrackingComment(
      final("done", { mcpFailures: [{ server: "local", error: "its process exited with code 7 mid-job\nand is not restarted" }] }),
      JOB,
    );
    expect(body).toContain("MCP servers the job could not use:\n- `local`: its process exited with code 7 mid-job and is not restarted\n");
    expect(renderTrackingComment(final("done", {}), JOB)).not.toContain("MCP servers");
  });

  it("links the job's dashboard page while working and at the end, and lists the artifacts (a link, or the name without a dashboard)", () => {
    const url = "https://tackle.example/dashboard/jobs/octo-widgets-7-delivery-1";
    const working = renderTrackingComment({ phase: "working", step: "reading", todos: [], startedAt: START }, JOB, START, "tackle", url);
    expect(working).toContain(`\n\n[Follow the transcript live](${url})\n\n_Comment`);
    const body = renderTrackingComment(
      final("done", {
        artifacts: [
          { id: "a1", name: masked("report.md"), description: masked("the\nfindings"), bytes: 10, url: `${url}/artifacts/a1` },
          { id: "a2", name: masked("shot.png"), bytes: 20, url: null },
        ],
      }),
      JOB,
      START,
      "tackle",
      url,
    );
    expect(body).toContain(
      `Artifacts:\n- [report.md (a1)](${url}/artifacts/a1): the findings\n- \`shot.png (a2)\`\n\n[Transcript and artifacts](${url})\n\n${STATS_LINE}`,
    );
    expect(renderTrackingComment(final("done"), JOB, START)).not.toContain("Transcript and artifacts");
  });

  it("stays under GitHub's limit with every section full, cut between whole characters, marker first and stats last", () => {
    const many = (n: number, text: string) => Array.from({ length: n }, (_, i) => `${text} ${i}`);
    const body = renderTrackingComment(
      final("failed", {
        summary: "🙂".repeat(40_000),
        kept: "k".repeat(5_000),
        memoryWrites: Array.from({ length: 200 }, () => ({ action: "saved" as const, name: "x", description: "m".repeat(200) })),
        hookDenials: many(500, "Bash"),
        backgroundJobs: many(200, "job".padEnd(200, "b")),
        mcpFailures: many(200, "e").map((error) => ({ server: "s".repeat(300), error: error.padEnd(300, "e") })),
        subagents: many(200, "d").map((description, i) => ({
          path: `main/${i}/1`,
          depth: 1,
          type: "explore",
          description,
          status: "done",
          turns: 1,
          costUsd: 0,
        })),
        artifacts: many(200, "a").map((_, i) => ({
          id: `a${i + 1}`,
          name: masked("n".repeat(120)),
          description: masked("d".repeat(300)),
          bytes: 1,
          url: `https://x/${"u".repeat(200)}`,
        })),
      }),
      JOB,
      START,
      "tackle",
      "https://tackle.example/dashboard/jobs/j",
    );
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body.startsWith(MARKER)).toBe(true);
    expect(body.endsWith(STATS_LINE)).toBe(true);
    // No half of a surrogate pair: GitHub would refuse the body, or show garbage.
    expect(body).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    expect(body).toContain("omitted from the middle");
  });

  it("a cut never leaves a code block open over what follows (the stats stay outside any fence)", () => {
    const fenced = `Logs:\n\`\`\`\n${"line of output\n".repeat(5_000)}\`\`\`\nThe fix is in.`;
    for (const body of [
      renderTrackingComment(final("done", { summary: fenced }), JOB, START),
      renderTrackingComment(final("failed", { summary: "s".repeat(10), kept: "k", reason: fenced }), JOB, START),
    ]) {
      // The summary is quoted: its fences start after the quote's marker.
      const fences = body.split("\n").filter((line) => line.replace(/^> /, "").startsWith("```")).length;
      expect(fences % 2).toBe(0);
      expect(body.endsWith(STATS_LINE)).toBe(true);
    }
    expect(renderTrackingComment(final("done", { summary: fenced }), JOB, START)).toContain("the summary was cut");
  });
});
