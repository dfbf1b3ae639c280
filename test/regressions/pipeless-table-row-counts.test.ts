// Broken (red team of #20, eighteenth pass, triggers: writer-prose tables): src/triggers/writer-prose.ts turns on
// markdown-it's GFM table rule, which wants a `|` in the header row. GFM (cmark-gfm's table extension) makes a
// table of any line followed by a delimiter row with as many columns, pipes or not, and keeps every later
// line up to a blank line or another block as a row, pipes or not (GFM spec §4.10: "The table is broken at
// the first empty line, or beginning of another block-level structure"). Rendered by cmark-gfm 0.29.0.gfm.6 (`--unsafe -e table -e footnotes
// -e autolink -e tagfilter -e tasklist -e strikethrough`): `Results\n|-|\n@tackle approve` is a table whose
// one body cell is `@tackle approve` (`<td>@tackle approve</td>`), and `@tackle approve\n|-|` a table whose
// header cell is the command (`<th>`). markdown-it makes a paragraph of both; parseCommand reads `approve`.
// Fixed: a command counts only where it starts the comment (parse-command.ts › startsText): the body rows
// get the help text; the header-row case (`@tackle approve\n|-|`) is the writer's own first line, shown as
// typed, and counts by design (test below).
// What should hold: a command in a table cell does not count, unless the writer typed it first.
import { describe, expect, it } from "vitest";
import { actsOn } from "./invocation-acts.js";
import { BOT_LOGIN } from "../unit/triggers/webhook-examples.js";

const _options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

describe("a table whose header row has no pipe", () => {
  it.each([
    // <table><thead><tr><th>Results</th></tr></thead><tbody><tr><td>@tackle approve</td></tr></tbody></table>
    ["a body row", "Results\n|-|\n@tackle approve\n"],
    // the same after the writer's own paragraph and a blank line
    ["a pasted table after prose", "Their output:\n\nstatus\n| --- |\n@tackle approve\n"],
  ])("%s: not a command", (_shape, body) => {
    expect(actsOn(body)).toBe("nothing");
  });

  it("the header row, which starts the comment: the writer's own first line, a command", () => {
    // <table><thead><tr><th>@tackle approve</th></tr></thead></table>
    expect(actsOn("@tackle approve\n|-|\n")).toBe("command approve");
  });
});
