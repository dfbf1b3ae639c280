// Found while replacing the hand-made prose rules with a CommonMark parser (sixteenth pass, #20): the
// parse runs on every comment anyone posts, before any permission check, so its cost on the Tackle
// process must stay small for any 64 KB body. commonmark.js took 6 s on `[a](` × 16,000 and 2.6 s on
// `- ` × 30,000; markdown-it with only its block rules stays under ~0.25 s on every shape here.
// What should hold: parsing a hostile comment of GitHub's maximum size holds the event loop well
// under a second (1.5 s is generous for a 2-core machine).
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/triggers/parse-command.js";
import { longestStall } from "./longest-stall.js";

const SIZE = 65_536;
const fill = (unit: string) => unit.repeat(Math.floor(SIZE / unit.length));
const SHAPES: Record<string, string> = {
  "open brackets": fill("["),
  "unclosed links": fill("[a]("),
  "nested quotes": fill("> "),
  "nested list markers": fill("- "),
  "list lines": fill("- a\n  - b\n"),
  "quote lines": fill("> a\n"),
  "lazy quote lines": fill("> a\nb\n"),
  fences: fill("~~~\na\n"),
  "setext headings": fill("a\n---\n"),
  "HTML blocks": fill("<div>\n\n"),
  "unclosed HTML quotes": fill("<blockquote>"),
  "escaped HTML quotes": fill("\\</blockquote>"),
  "reference definitions": fill("[a]: b\n"),
  "tabs and markers": fill("\t- a\n"),
  backticks: fill("`"),
  "line endings": fill("\r"),
};

describe("the prose rule's cost on a hostile comment", () => {
  it.each(Object.entries(SHAPES))("%s: well under a second", async (_shape, body) => {
    const stall = await longestStall(async () => {
      parseCommand(`${body}\n/tackle approve`, "tackle");
    });
    expect(stall).toBeLessThan(1_500);
  });
});
