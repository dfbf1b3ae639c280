// Broken (red team of #20, nineteenth pass, inert text on Tackle's surfaces): `inert` leaves an underscore
// unescaped when a "word" character sits on both sides, and counts `-` as one; CommonMark counts `-` as
// punctuation, so `-_text_-` and `-__text__-` open and close emphasis: a todo, reason or description from
// the model shows as <em>/<strong> in the tracking comment (and can stretch across words, or around a mask).
// Fixed: an underscore stays unescaped only between two letters or digits (surface-markdown.ts › escapePlain).
// What should hold: text through `inert` renders as the characters it is, with no emphasis of its own.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { inert } from "../../src/util/surface-markdown.js";

function render(markdown: string): string {
  return execFileSync(
    "cmark-gfm",
    ["--unsafe", "-e", "table", "-e", "footnotes", "-e", "autolink", "-e", "tagfilter", "-e", "tasklist", "-e", "strikethrough"],
    {
      input: markdown,
      encoding: "utf8",
    },
  );
}

describe("inert: an underscore after a hyphen", () => {
  for (const text of ["step -_one_- done", "-__Re-authorize Tackle now__- please", "see -_all of these words_- here"]) {
    it(`shows ${JSON.stringify(text)} without emphasis`, () => {
      const html = render(`- ${inert(text)}\n`);
      expect(html).not.toMatch(/<em>|<strong>/);
    });
  }

  it("leaves snake_case and a token's underscore as they are", () => {
    expect(render(inert("snake_case ghp_abc"))).toContain("snake_case ghp_abc");
  });
});
