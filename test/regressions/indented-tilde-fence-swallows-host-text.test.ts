// Broken (red team of #20, eighteenth pass, surfaces: agentProse): src/util/neutralize-prose.ts › neutralizeProse
// closes a code block the agent left open only when src/util/markdown-code.ts › topLevelFences finds it, and
// that takes a fence opened at the first column only. CommonMark (§4.5) opens a fence indented one to three
// spaces too, and an unclosed one runs to the end of the document; a backtick fence so indented is defused
// (its backticks are escaped), but tildes are left as written. So a model (prompt-injected by the issue)
// that ends its PR body with ` ~~~` puts the host's own "Fixes #N" line inside a code block: rendered by
// cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes -e autolink -e tagfilter …`), ensureFixesLine's
// `Done.\n ~~~\n\nFixes #12` is `<p>Done.</p>\n<pre><code>\nFixes #12\n</code></pre>`: the pull request no longer
// closes or links the issue, and the text Tackle adds reads as the agent's code. The same swallows
// ReportToIssue's host footer (the artifact links Tackle adds) into the agent's code block.
// Fixed: a tilde fence indented one to three spaces in prose is escaped (neutralize-prose.ts › escapeProse).
// What should hold: "a code block left open is closed, so it cannot swallow what Tackle writes after it"
// (docs/security-model.md, Text on Tackle's surfaces): what the host appends after the agent's prose is
// outside any code block the prose opened.
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import type { GitHubClient } from "../../src/github/index.js";
import { agentProse, md, type SurfaceMarkdown } from "../../src/util/surface-markdown.js";
import { ensureFixesLine, githubIssuePort } from "../../src/worker/github-ports.js";

// CommonMark block structure (markdown-it agrees with cmark-gfm on every body here).
const blocks = new MarkdownIt("commonmark");

/** Whether `needle` is inside a fenced or indented code block of `markdown`. */
function inCodeBlock(markdown: string, needle: string): boolean {
  return blocks.parse(markdown, {}).some((token) => (token.type === "fence" || token.type === "code_block") && token.content.includes(needle));
}

const OPEN_FENCES = ["Done.\n ~~~\n", "Done.\n   ~~~\nthe rest", "Done.\n  ~~~~~ text\n"];

describe("an indented tilde fence the agent leaves open", () => {
  it.each(OPEN_FENCES)("PR body %j: the host's Fixes line is not code", (prose) => {
    const body = ensureFixesLine(prose, 12);
    expect(body).toContain("Fixes #12");
    expect(inCodeBlock(body, "Fixes #12")).toBe(false);
  });

  it.each(OPEN_FENCES)("agentProse %j followed by host text: the host text is not code", (prose) => {
    const body = md`${agentProse(prose)}\n\n**Artifacts:**`;
    expect(inCodeBlock(body, "**Artifacts:**")).toBe(false);
  });

  it("ReportToIssue: the artifact footer is not swallowed", async () => {
    let posted = "";
    const github = {
      createComment: async (_repo: unknown, _number: number, body: SurfaceMarkdown) => {
        posted = body;
        return { id: 1, url: "https://github.example/c/1" };
      },
    } as unknown as GitHubClient;
    const port = githubIssuePort({ github, redact: (text) => text, repo: { owner: "o", name: "r" }, number: 12, isTrusted: async () => false });
    await port.report({ prose: "Findings below.\n ~~~\n", footer: md`**Artifacts:**` });
    expect(posted).toContain("**Artifacts:**");
    expect(inCodeBlock(posted, "**Artifacts:**")).toBe(false);
  });
});
