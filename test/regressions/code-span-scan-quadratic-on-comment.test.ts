// Broken (red team of #20, tenth pass, event-loop stalls): `codeRanges` (src/util/markdown-code.ts) finds
// inline code with /(?<!`)(`+)(?!`)((?:[^\n]|\n(?![ \t]*\n))*?[^`\n])\1(?!`)/g. On "`\n" repeated (a
// backtick alone on each line, no blank line), every opener's lazy middle runs to the end of the text
// before failing, since the character before each backtick is a line break: quadratic. It runs on text
// anyone writes: `parseTrigger` parses every issue comment (before any permission check) through
// `parseCommand` › `maskNonProse`, and `sanitizeUntrustedText` on every issue body and comment of the
// thread. A comment of 60,000 characters (GitHub takes 65,536) held the event loop 2 s in parseTrigger and
// 4.6-8 s in sanitizeUntrustedText (2.2 s at 30,000, 8.3 s at 60,000, 31 s at 120,000 characters), every
// webhook, job and lock renewal with it; one comment, posted many times, keeps the server stalled.
// What should hold: untrusted issue text costs the Tackle process time linear in its size (as the
// escaper's and the redactor's scans already do), so a comment cannot hold the event loop for seconds.
// Fixed: inline code spans are found by a scan over backtick runs (markdown-code.ts › paragraphCodeSpans), linear in the text.
import { describe, expect, it } from "vitest";
import { parseTrigger } from "../../src/triggers/index.js";
import { sanitizeUntrustedText } from "../../src/util/sanitize-untrusted-text.js";
import { longestStall } from "./longest-stall.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const BODY = "`\n".repeat(32_500); // 65,000 characters: under GitHub's 65,536 for a comment or an issue body

describe("a comment of lone backticks on their own lines", () => {
  it("a webhook's comment is parsed without holding the event loop", async () => {
    let kind = "";
    const stall = await longestStall(async () => {
      kind = parseTrigger("issue_comment", issueComment(`@tackle ${BODY}`), {
        deliveryId: "d-1",
        botLogin: BOT_LOGIN,
        botName: "tackle",
        triggerLabel: "tackle",
      }).kind;
    });
    expect(kind).not.toBe("");
    expect(stall).toBeLessThan(1_500);
  }, 120_000);

  it("an issue body is sanitized without holding the event loop", async () => {
    const stall = await longestStall(async () => sanitizeUntrustedText(BODY));
    expect(stall).toBeLessThan(1_500);
  }, 120_000);
});
