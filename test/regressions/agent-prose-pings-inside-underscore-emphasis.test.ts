// Broken (red team of #20, eighteenth pass, surfaces: agentProse mentions): src/util/neutralize-prose.ts ›
// breakPings leaves an `@name` alone when an ASCII letter, digit or `_` comes right before the `@` (an
// e-mail's local part, `a_b@x.com`). But a `_` before the `@` may be an emphasis delimiter, which GitHub
// removes when it renders: `_@octocat_` is `<em>@octocat</em>` and `__@hubot__` is `<strong>@hubot</strong>`
// (cmark-gfm 0.29.0.gfm.6, `--unsafe -e table -e footnotes -e autolink -e tagfilter -e tasklist
// -e strikethrough`). GitHub finds mentions in the rendered text, one text node at a time (a mention at a
// node's start counts, as html-pipeline's MentionFilter's `(?:^|\W)@name` does), so both are pinged from
// Tackle's own comment: a ReportToIssue comment, the PR body, or the task_done summary quoted in the
// tracking comment. agentProse returns both unchanged.
// Fixed: only an ASCII letter or digit before `@` leaves it alone, not `_` (neutralize-prose.ts › breakPings).
// What should hold: the agent's prose pings nobody: no rendered text holds an `@name` that starts the text
// or follows anything but an ASCII letter, digit or `_` (docs/security-model.md, Text on Tackle's surfaces).
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { agentProse } from "../../src/util/surface-markdown.js";

// CommonMark with inline parsing: emphasis as cmark-gfm renders it.
const renderer = new MarkdownIt("commonmark");

/** Every text node of the rendered Markdown, as GitHub's mention filter reads them. */
function textNodes(markdown: string): string[] {
  const texts: string[] = [];
  for (const block of renderer.parse(markdown, {})) {
    for (const child of block.children ?? []) if (child.type === "text") texts.push(child.content);
  }
  return texts;
}

const PING = /(?:^|[^A-Za-z0-9_])@[A-Za-z0-9]/;

describe("an @mention inside underscore emphasis", () => {
  it.each([
    ["emphasis", "Thanks _@octocat_ for the report."],
    ["strong emphasis", "Ping __@hubot__ when this lands."],
    ["emphasis at the start of a line", "_@octocat_ please review"],
  ])("%s: nobody is pinged", (_shape, prose) => {
    const pinging = textNodes(agentProse(prose)).filter((text) => PING.test(text));
    expect(pinging).toEqual([]);
  });

  it("an e-mail address still reads as written", () => {
    expect(agentProse("write to a_b@example.com")).toBe("write to a_b@example.com");
  });
});
