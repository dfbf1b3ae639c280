// Broken (red team of #20, twentieth pass, redaction on Tackle's surfaces): a configured secret written with
// an invisible character inside it (`s3cr3t$\u200bValue!42`, as a hostile stdio MCP server given the secret
// can print it, or a prompt-injected model copy it) is not the secret when the tracker masks the state, so
// it stays; `inert` / `agentProse` then drop the invisible character, joining the secret, and escape its
// `$` / `!` (`s3cr3t\$Value\!42`), so the redacting client's last pass (`maskSurface`) does not find it
// either: GitHub shows `s3cr3t$Value!42` in the tracking comment.
// Fixed: maskSurface also looks for secrets in what GitHub shows (escapes dropped, emphasis and invisible
// characters removed) and, when one is there, shows the text as code, masked (surface-markdown.ts › renderedViews).
// What should hold: no configured secret is readable in what GitHub renders of a Tackle comment.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { createRedactor, redactDeep } from "../../src/util/redact.js";
import { maskSurface } from "../../src/util/surface-markdown.js";
import { renderTrackingComment, type TrackingState } from "../../src/worker/tracking-comment.js";

const SECRET = "s3cr3t$Value!42";
const SPLIT = "s3cr3t$\u200bValue!42";

function renderedText(markdown: string): string {
  const html = execFileSync(
    "cmark-gfm",
    ["--unsafe", "-e", "table", "-e", "footnotes", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", "-e", "strikethrough"],
    { input: markdown, encoding: "utf8" },
  );
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"');
}

/** The tracker's path: the state masked, rendered, then the redacting client's last pass. */
function posted(state: TrackingState): string {
  const redact = createRedactor([SECRET]);
  const body = renderTrackingComment(redactDeep(state, redact) as TrackingState, "job-1", 0);
  return maskSurface(body, redact);
}

describe("a secret split by an invisible character", () => {
  it("is not shown whole in the tracking comment's current step (inert)", () => {
    const text = renderedText(posted({ phase: "working", step: `Using ${SPLIT} now`, todos: [], startedAt: 0 }));
    expect(text).not.toContain(SECRET);
  });

  it("is not shown whole in the tracking comment's summary (agentProse)", () => {
    const stats = { durationMs: 1, turns: 1, inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, costUsd: 0 };
    const state = { phase: "done", reason: "ok", summary: `Key is ${SPLIT}`, stats } as unknown as TrackingState;
    const text = renderedText(posted(state));
    expect(text).not.toContain(SECRET);
  });
});
