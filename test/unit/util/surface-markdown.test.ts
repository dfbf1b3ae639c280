import { describe, expect, it } from "vitest";
import {
  agentProse,
  code,
  hiddenMarker,
  hostUrl,
  inert,
  link,
  maskSurface,
  md,
  mention,
  quote,
  type SurfaceMarkdown,
  tableRow,
} from "../../../src/util/surface-markdown.js";

describe("inert", () => {
  it("escapes what makes links, images, HTML, entities, emphasis and math; a one-line code span stays one", () => {
    expect(inert("[a](https://x.example) ![i](y) <img src=z> &#64;me *b* ~c~ `d` $e$ a\\b")).toBe(
      "\\[`a](https://x.example`) \\!\\[i\\](y) \\<img src=z\\> `&#64;me` \\*b\\* \\~c\\~ `d` \\$e\\$ a\\\\b",
    );
  });

  it("shows what GitHub would link or ping as code: addresses, e-mails, mentions, issue references", () => {
    expect(inert("see https://evil.example/x www.evil.example a@b.example @octocat #12 o/r#3 GH-4 C# done")).toBe(
      "see `https://evil.example/x` `www.evil.example` `a@b.example` `@octocat` `#12` `o/r#3` `GH-4` C# done",
    );
    // Punctuation around such a word stays outside the span, and a mask the redactor put in stays readable.
    expect(inert("(@octocat), [REDACTED:github-token](x) [REDACTED]:")).toBe("(`@octocat`), [REDACTED:github-token]\\(x) [REDACTED]\\:");
    // GitHub links a www. address after ( * _ ~ too, and GH-12 after punctuation.
    expect(inert("(www.evil.example) _www.evil.example_ (GH-12)")).toBe("(`www.evil.example`) `_www.evil.example_` (`GH-12`)");
  });

  it("stays on one line and cannot start a block: heading, quote, list, ordered list, table", () => {
    expect(inert("# title\n- item\n\n| a | b |")).toBe("\\# title - item \\| a \\| b \\|");
    for (const start of ["> q", "- x", "+ x", "= x", "1. x", "2) x"]) expect(inert(start)).not.toMatch(/^(>|-|\+|=|\d+[.)] )/);
    expect(inert("3.14 is pi")).toBe("3.14 is pi");
    expect(inert("a\u2028b\rc\u0085d")).toBe("a b cd");
  });

  it("keeps an underscore inside a word (a token's shape stays whole for the redactor), escapes one at a word's edge", () => {
    expect(inert("ghp_abc snake_case _em_")).toBe("ghp_abc snake_case \\_em\\_");
  });

  it("drops invisible characters (bidi overrides, zero-width) and cuts to maxChars", () => {
    expect(inert("a\u202eb\u200bc")).toBe("abc");
    expect(inert("abcdef", { maxChars: 4 })).toBe("abc…");
  });

  it("escapes every backtick but a kept span's, so GitHub pairs no others", () => {
    // The escaped backtick opens nothing; the next one opens the span "` c`"; the pipe keeps "`d|e`" from being one.
    expect(inert("`a` \\`b` c` `d|e`")).toBe("`a` \\\\\\`b` c` \\`d\\|e\\`");
  });

  it("a backtick or pipe inside an address does not end its code span", () => {
    expect(inert("x`https://e.example/a|b`y")).toBe("x\\``https://e.example/a`\\|b\\`y");
  });

  it("splits off the punctuation around an address: opening `(\"'<[` before, closing `)\"'>].,;:!?` at the end only", () => {
    expect(inert("(https://x.example/a).")).toBe("(`https://x.example/a`).");
    expect(inert('"(https://x.example/a?b=1)"!?')).toBe('"(`https://x.example/a?b=1`)"\\!?');
    expect(inert("<www.x.example>, [@x] '#1'")).toBe("\\<`www.x.example`\\>, \\[`@x`\\] '`#1`'");
    // Closing punctuation the word goes on after is part of the address.
    expect(inert("https://x.example/a).b ..://..")).toBe("`https://x.example/a).b` `..://`..");
    // A word of punctuation alone is no address.
    expect(inert("(( (x)).")).toBe("(( (x)).");
  });

  it("keeps a code span after an even run of backslashes, not after an odd one; an opener closes at the next run of its length", () => {
    expect(inert("\\\\`a`")).toBe("\\\\\\\\`a`");
    expect(inert("\\`a`")).toBe("\\\\\\`a\\`");
    // `` finds no `` to close it, so it opens nothing; `b` is a span of its own.
    expect(inert("``a `b`")).toBe("\\`\\`a `b`");
    // A run of another length inside does not close it.
    expect(inert("``a`b`` ```a``b```")).toBe("``a`b`` ```a``b```");
    expect(inert("`a|b`")).toBe("\\`a\\|b\\`");
  });
});

describe("agentProse", () => {
  it("keeps formatting, lists, tables, code and bare URLs", () => {
    const text = "## Fix\n\n- **bold** _it_\n- [ ] task\n\n| a | b |\n| - | - |\n\n`x[1](y)`\n\n```ts\nconst a = b < c && d[0](e);\n```\nhttps://docs.example";
    expect(agentProse(text)).toBe(text.replace("b < c", "b < c"));
  });

  it("shows a link's or an image's syntax and address instead of making it; no reference definition forms", () => {
    expect(agentProse("[re-authorize](https://evil.example) ![](https://evil.example/p.png)\n[x]: https://evil.example")).toBe(
      "[re-authorize]\\(https://evil.example) ![]\\(https://evil.example/p.png)\n[x]\\: https://evil.example",
    );
  });

  it("makes HTML, autolinks, entities and math text", () => {
    expect(agentProse('<img src="https://evil.example/p.png"> <https://evil.example> &#64;octocat &amp; $x$')).toBe(
      '\\<img src="https://evil.example/p.png"> \\<https://evil.example> \\&#64;octocat \\&amp; \\$x\\$',
    );
  });

  it("pings nobody and cross-references no other repository, but keeps this one's references", () => {
    expect(agentProse("@octocat \\@team a@b.example o/r#12 Fixes #3")).toBe("@\u2060octocat \\@\u2060team a@b.example o/r#\u206012 Fixes #3");
  });

  it("breaks a reference that is owner, `/`, repository, then `#` or `@` before a hex digit, each part of [A-Za-z0-9_.-]", () => {
    const broken = ["owner/repo@a1b2c3d", "x.y-z_/r.e-p_o#f", "(owner/repo#12)", "éowner/repo#1", "o/r#1x/y"];
    for (const word of broken) expect(agentProse(word)).toBe(word.replace(/([#@])/, "$1\u2060"));
    // The nearest owner/repo before the sign; each reference in a word.
    expect(agentProse("a/b/c#1 a/b#1/c#2")).toBe("a/b/c#\u20601 a/b#\u20601/c#\u20602");
    // No owner, no repository, no hex digit after the sign, or a letter GitHub does not take in a name.
    const kept = ["/repo#12", "owner/#12", "owner/repo#x", "owner/repo#", "owner/repo##1", "é/ü#1", "owner/repo@octocat", "src/a/b.ts"];
    for (const word of kept) expect(agentProse(word)).toBe(word);
  });

  it("keeps a code span after an even run of backslashes, on one line and without a pipe", () => {
    expect(agentProse("\\\\`a` \\`b`")).toBe("\\\\`a` \\`b\\`");
    expect(agentProse("``a `b`")).toBe("\\`\\`a `b`");
    expect(agentProse("`a\nb`")).toBe("\\`a\nb\\`");
    expect(agentProse("`a|b`")).toBe("\\`a|b\\`");
  });

  it("does not take for code what GitHub renders as prose", () => {
    const tricks = [
      // An escaped backtick opens no code span.
      "\\`[a](https://evil.example) `",
      // A table cell ends at the pipe before the span would.
      "| `x | [a](https://evil.example) ` |\n| - | - |",
      // A fence indented in a list item closes with the item.
      "- item\n  ```\n[a](https://evil.example)\n```",
      // A backtick fence with a backtick in its info string is no fence.
      "```x`y\n[a](https://evil.example)\n```",
      // A span across lines may be two blocks.
      "`a\n- [a](https://evil.example) `",
      // Nor can backticks GitHub pairs otherwise (a block that starts mid-paragraph) hide a link.
      "`a\n- b` `[x](https://evil.example)` `",
      // CR line endings close a fence as LF does.
      "```\r\ncode\r\n```\r\n[a](https://evil.example)",
    ];
    for (const trick of tricks) expect(agentProse(trick)).not.toMatch(/(?<!\\)\]\(https/);
  });

  it("closes a code block left open, so it cannot swallow what follows", () => {
    expect(agentProse("text\n```\ncode")).toBe("text\n```\ncode\n```");
  });

  it("cuts the middle of a long text and says so", () => {
    const shown = agentProse("a".repeat(5_000), { maxChars: 1_000, hint: "the summary was cut" });
    expect(shown.length).toBeLessThan(1_100);
    expect(shown).toContain("the summary was cut");
  });
});

describe("Tackle's own constructors", () => {
  it("md takes only SurfaceMarkdown and numbers", () => {
    expect(md`a ${inert("*b*")} ${3}`).toBe("a \\*b\\* 3");
    // @ts-expect-error a plain string is not SurfaceMarkdown
    md`a ${"*b*"}`;
  });

  it("links and bare addresses are http(s) only, with nothing that ends the link early", () => {
    expect(link(inert("a]b"), "https://x.example/a b(c)")).toBe("[a\\]b](https://x.example/a%20b%28c%29)");
    expect(() => link(md`x`, "javascript:alert(1)")).toThrow();
    expect(hostUrl("https://github.com/o/r/pull/5")).toBe("https://github.com/o/r/pull/5");
  });

  it("code, mention, marker, quote and table rows", () => {
    expect(code("a `b` c")).toBe("``a `b` c``");
    expect(mention("alice")).toBe("@alice");
    expect(mention("[x](y)")).toBe("@\\[x\\](y)");
    expect(() => hiddenMarker("x --> <img>")).toThrow();
    expect(quote(md`a\n\nb`)).toBe("> a\n>\n> b");
    expect(tableRow([md`a|b`, inert("c|d"), md`e\\|f`])).toBe("| a\\|b | c\\|d | e\\|f |");
  });

  it("a mask that would take Markdown's own characters (a backtick, a backslash) shows the text as a code block, markers kept", () => {
    const redact = (text: string) => text.replace(/BEGIN[\s\S]*END/, "[REDACTED:private-key]");
    const body = md`<!-- tackle:tracking job=j1 -->\nsee BEGIN \`END [a](https://evil.example)\``;
    const shown = maskSurface(body, redact);
    expect(shown.split("\n")[0]).toBe("<!-- tackle:tracking job=j1 -->");
    expect(shown).toMatch(/\n```\nsee \[REDACTED:private-key\] \[a\]\(https:\/\/evil\.example\)`\n```$/);
    // Within a token's characters the mask is kept in place; an @ after it pings nobody.
    expect(maskSurface(md`x://u:pw@octocat`, (text) => text.replace("pw", "[REDACTED]"))).toBe("x://u:[REDACTED]@\u2060octocat");
  });

  it("a mask put in by the redactor's last pass cannot be made a link", () => {
    expect(maskSurface(md`see SECRET(https://evil.example)`, (text) => text.replace("SECRET", "[REDACTED]"))).toBe("see [REDACTED]\\(https://evil.example)");
  });

  it("a mask ends at the first `]` after `[REDACTED` on its line; only what follows that `]` is defused", () => {
    const shown = (text: string) => maskSurface(text as SurfaceMarkdown, (masked) => masked);
    expect(shown("[REDACTED[REDACTED](x) [REDACTED](a) [REDACTED]:b")).toBe("[REDACTED[REDACTED]\\(x) [REDACTED]\\(a) [REDACTED]\\:b");
    for (const kept of ["[REDACTED\n](x)", "[REDACTED] (x)", "[REDACTED:github-token]x](y)", "x](y)", "[REDACTED]@", "[REDACTED]@-x", "[REDACTED]@\u{1F600}"]) {
      expect(shown(kept)).toBe(kept);
    }
    // A letter or digit after the @, also outside ASCII and the BMP.
    expect(shown("[REDACTED]@é [REDACTED]@\u{1D400} [REDACTED]@7")).toBe("[REDACTED]@\u2060é [REDACTED]@\u2060\u{1D400} [REDACTED]@\u20607");
  });
});
