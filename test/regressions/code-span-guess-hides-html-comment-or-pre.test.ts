// Broken (red team of #20, seventeenth pass, triggers: writer-prose / markdown-code): before the HTML scan,
// src/triggers/writer-prose.ts › maskNonProse blanks what src/util/markdown-code.ts › codeRanges
// (paragraphCodeSpans) takes for code spans, and codeRanges pairs backticks by rules of its own: it ignores
// backslash escapes, ignores that a raw HTML tag or comment takes precedence over a code span (CommonMark
// 0.29 §6.1 "Code spans": "Code span backticks have higher precedence than any other inline constructs
// except HTML tags and autolinks"), and never lets a run at a line's start close a span (§6.1 allows it).
// Where it guesses a span GitHub does not make, the `<pre>` or `<!--` inside it is blanked, so the element
// or comment GitHub opens is never seen; where it misses a span GitHub makes, a `</pre>` inside that span
// closes the element early. Each body below, rendered by cmark-gfm 0.29.0.gfm.6 (Debian's `cmark-gfm
// --unsafe -e table -e autolink -e tagfilter …`) and the HTML parsed by parse5 as a browser does, puts
// `@tackle approve` inside an HTML comment (not shown) or inside `<pre>`; parseCommand reads `approve`.
// Fixed: HTML is read fail-closed from the raw text outside code blocks, code spans not consulted: a comment
// hides to its end, an HTML code or quote element hides everything after it (triggers/writer-prose.ts › hiddenByHtml).
// What should hold: a command inside an HTML comment or a `<pre>` element as GitHub renders it does not count:
// each body parses as no invocation.
import { describe, expect, it } from "vitest";
import { parseCommand } from "../../src/triggers/parse-command.js";
import { parseTrigger } from "../../src/triggers/parse-trigger.js";
import { BOT_LOGIN, issueComment } from "../unit/triggers/webhook-examples.js";

const options = { deliveryId: "d-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

// GitHub's HTML for each (cmark-gfm), and where the command lands (parse5):
const BODIES: Array<[string, string]> = [
  // <p>x `<!-- `\n@tackle approve\n--></p>: the command is inside a comment; GitHub shows "x `".
  ["an escaped backtick before a comment", "x \\`<!-- `\n@tackle approve\n-->\n"],
  // <p>x `<pre>`\n@tackle approve</p>: body > pre.
  ["an escaped backtick before <pre>", "x \\`<pre>`\n@tackle approve\n"],
  // <p>x <span title="`"><pre><span title="`">\n@tackle approve</p>: body > pre > span.
  ["backticks inside tags' attribute values", 'x <span title="`"><pre><span title="`">\n@tackle approve\n'],
  // <p><code>a </code> <pre> `\n@tackle approve</p>: the span closes at the line-start backtick; body > pre.
  ["a span closed by a backtick at a line's start, then <pre>", "`a\n` <pre> `\n@tackle approve\n"],
  // <p>Text <pre>\nx <code>&lt;/pre&gt; </code>\n@tackle approve</p>: the </pre> is code; body > pre.
  ["a </pre> inside a span closed at a line's start", "Text <pre>\nx `</pre>\n`\n@tackle approve\n"],
];

describe("a code span guessed where GitHub makes none, or missed where it makes one", () => {
  it.each(BODIES)("%s: the command inside a comment or <pre> does not count", (_shape, body) => {
    expect(parseCommand(body, "tackle").kind).toBe("none");
    expect(parseTrigger("issue_comment", issueComment(body), options).kind).toBe("ignored");
  });
});
