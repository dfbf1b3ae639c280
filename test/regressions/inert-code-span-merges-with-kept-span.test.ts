// Broken (red team of #20, twentieth pass, inert text on Tackle's surfaces): `inert` keeps a one-line code
// span of the text as written and wraps a linky word (URL, e-mail, `@name`, `#12`) in single backticks; with
// no space between them the two backtick runs touch (``` ``x`` ``` + `` `https://…` `` gives ``` ``x```https://…` ```),
// so the runs GitHub pairs are no longer the ones inert meant: no span closes, every backtick is literal, and the
// URL or e-mail is a live link (`@name`, `#12` a ping or cross-reference) in the tracking comment or summary.
// Fixed: a code span inert makes never touches a kept one: a space goes between (surface-markdown.ts › inert).
// What should hold: text through `inert` renders as the characters it is: no link, and nothing linky outside code.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { inert } from "../../src/util/surface-markdown.js";

function render(markdown: string): string {
  return execFileSync(
    "cmark-gfm",
    ["--unsafe", "-e", "table", "-e", "footnotes", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", "-e", "strikethrough"],
    { input: markdown, encoding: "utf8" },
  );
}

/** The rendered HTML with every <code> element taken out. */
const outsideCode = (html: string) => html.replace(/<code>[\s\S]*?<\/code>/g, "");

describe("inert: a linky word touching a code span of the text", () => {
  for (const text of ["Re-authorize ``here``https://evil.example/login now", "mail ``x``evil@example.com", "https://evil.example/``x``"]) {
    it(`shows ${JSON.stringify(text)} with no live link`, () => {
      const html = render(`- ${inert(text)}\n`);
      expect(html).not.toMatch(/<a /);
    });
  }

  for (const text of ["ask ``x``@octocat", "@octocat``x`` please", "see ``x``#12"]) {
    it(`keeps the mention or reference in ${JSON.stringify(text)} inside code`, () => {
      const html = render(`- ${inert(text)}\n`);
      expect(outsideCode(html)).not.toMatch(/@octocat|#12/);
    });
  }
});
