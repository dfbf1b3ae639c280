// The step summary escaped HTML in text from the job, but not Markdown: an artifact's description
// (the model's words, through UploadArtifact) or the outcome's reason could add a link with any text
// to any address, or an image fetched when the run's page is opened, to a page GitHub shows as
// Tackle's own report. Now the characters that make links, images, emphasis and code are escaped too,
// and the words GitHub links on their own (an address, a mention, an issue reference) are shown as code
// (src/util/surface-markdown.ts `inert`).
import { describe, expect, it } from "vitest";
import { renderStepSummary } from "../../src/main/action-report.js";
import type { JobOutcome } from "../../src/worker/index.js";
import { masked } from "../fakes/masked.js";

const stats = { durationMs: 1_000, turns: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, costUsd: 0 };
const LURE = "[Download the fixed build](https://evil.example/build) ![](https://evil.example/pixel.png) **urgent** `code`";

describe("the step summary, with Markdown in text from the job", () => {
  it("shows an artifact's description and the outcome's reason as text", () => {
    const outcome: JobOutcome = {
      status: "done",
      reason: masked(LURE),
      pullRequestUrl: null,
      stats,
      artifacts: [{ id: "a1", name: masked("notes.md"), description: masked(LURE), bytes: 3, url: null }],
    };
    const summary = renderStepSummary({ kind: "job", outcome, issue: "o/r#4", sandbox: "" });
    // Outside code spans (where GitHub renders nothing), no link or image opens and no emphasis.
    const prose = summary.replace(/(?<!\\)`[^`\n]*`/g, "");
    expect(prose).not.toMatch(/(?<!\\)\[/);
    expect(prose).not.toMatch(/(?<!\\)\*\*urgent/);
    // The addresses are shown, as code, and the rest as escaped text.
    expect(summary).toContain(
      "- `a1-notes.md` (3 bytes): \\[Download the fixed `build](https://evil.example/build`) `![](https://evil.example/pixel.png`) \\*\\*urgent\\*\\* `code`",
    );
  });
});
