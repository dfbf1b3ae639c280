import TurndownService from "turndown";
import { describe, expect, it } from "vitest";
import { convertHtml, htmlToMarkdown, MARKDOWN_MAX_DEPTH, PLAIN_TEXT_NOTE } from "../../../src/net/html-to-markdown.js";
import { isWhitespace } from "../../../src/net/markdown/index-text.js";
import { needsExtraSpace } from "../../../src/net/markdown/markdown-rules.js";

// The conversion before net/markdown/: turndown itself, with the options and the removed elements
// html-to-markdown.ts used. Pages within the limits (and within 8 levels of quote or list) must
// convert to exactly what it made.
const DROPPED = new Set(["script", "style", "noscript", "iframe", "svg", "template", "object", "embed"]);
const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" }).remove((node) =>
  DROPPED.has(node.nodeName.toLowerCase()),
);
const asTurndownMade = (html: string) => turndown.turndown(html).trim();

const PAGES: Record<string, string> = {
  docs: `<!doctype html><html><head><title>Guide</title><meta charset="utf-8"><style>p{color:red}</style><script>steal()</script></head>
    <body><nav><ul><li><a href="/">Home</a></li><li><a href="/docs" title="The docs">Docs</a></li></ul></nav>
    <main><h1>Install  <small>v2</small></h1><p>Run <code>npm ci</code>, then <em>read</em> the <strong>notes</strong>.</p>
    <pre><code class="language-sh">npm ci
npm test
</code></pre><h2 id="x">Options</h2><table><thead><tr><th>name</th><th>default</th></tr></thead>
    <tbody><tr><td><code>depth</code></td><td>256</td></tr><tr><td>cap</td><td>&nbsp;</td></tr></tbody></table>
    <blockquote><p>Quoted <b>text</b>.</p><blockquote><p>Nested, with a <a href="https://x.test/a b">link</a>.</p></blockquote></blockquote>
    <ol start="3"><li>three</li><li>four<ol><li>four.one</li><li>four.two<ul><li>deeper</li></ul></li></ol></li><li><p>five</p><p>para</p></li></ol>
    <hr><p>Image: <img src="/logo.png" alt="a *logo*" title='say "hi"'> and <img alt="no src">.</p>
    <dl><dt>term</dt><dd>definition</dd></dl><iframe src="/ad">ad</iframe><svg><text>logo</text></svg><noscript>js</noscript>
    <p>Escapes: 1. not a list, # not a heading, *stars*, _under_, [brackets], \`ticks\`, back\\slash, &lt;tag&gt;</p>
    <p>Code with ticks: <code>a \` b</code>, <code>\`\`x\`\`</code>, <code> padded </code>, <code><br>line</code></p>
    <p>Spaces:<span> lead</span><span>trail </span> <i> both </i>&nbsp;<b>\u00a0nbsp\u00a0</b>x<br>line<br><br>after</p>
    <!-- a comment --><footer><p>© 2024 <a href="mailto:a@b.c">mail</a></p></footer></main></body></html>`,
  sloppy: `<p>one<p>two<ul><li>a<li>b</ul><div>unclosed <b>bold <i>both</b> italic</i><table><tr><td>cell<div>in cell</table>`,
  whitespaceOnly: `<div> </div><span> </span><p>\u00a0</p><b>\t</b><a href="/x"> </a><td> </td><pre>  kept  </pre>`,
  codeBlocks: "<pre><code>```\nfence\n````\n</code></pre><pre>plain <b>pre</b>\n  indented</pre><pre><code>a</code><code>b</code></pre>",
  lists: `<ul><li>one<ul><li>two<ul><li>three</li></ul></li></ul></li><li><ul><li>only a list</li></ul></li></ul><ol start=""><li>x</li><li>y</li></ol><ol start="x"><li>z</li></ol>`,
};

/** Pages made of a few tags, texts and attributes at random (a fixed seed), at most 7 levels deep. */
function randomPages(count: number, seed: number): string[] {
  let state = seed;
  const random = () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)] as T;
  const tags =
    "p div span b i em strong code pre blockquote ul ol li a h1 h3 br hr img table tr td th svg script section x-y u dl dt dd iframe noscript math template select option input".split(
      " ",
    );
  const texts = [
    " ",
    "  ",
    "\n",
    "a",
    "two words",
    " lead",
    "trail ",
    "\u00a0",
    "\u2003x\u2003",
    "*",
    "_x_",
    "`",
    "``",
    "1. x",
    "# h",
    "> q",
    "-",
    "+ ",
    "[l](u)",
    "a\\b",
    "&amp;",
    "&lt;b&gt;",
    "\t",
    "x\ny",
    "==",
    "~~~",
    "\u2028",
    "&nbsp;",
  ];
  const attributes: Record<string, readonly string[]> = {
    a: [' href="http://x/y"', ' href="a b" title="t\n\n t"', "", ' href="(x)"'],
    img: [' src="s.png" alt="a*b"', ' alt="x"', ' src=""', ' src="x y" title="q"'],
    ol: ["", ' start="3"', ' start="x"'],
    code: ["", ' class="language-js"'],
  };
  const build = (depth: number): string => {
    let html = "";
    for (let count = Math.floor(random() * 6); count > 0; count -= 1) {
      const roll = random();
      if (roll < 0.4 || depth >= 7) html += pick(texts);
      else if (roll < 0.45) html += "<!-- c -->";
      else {
        const tag = pick(tags);
        html += `<${tag}${pick(attributes[tag] ?? [""])}>${build(depth + 1)}${random() < 0.85 ? `</${tag}>` : ""}`;
      }
    }
    return html;
  };
  return Array.from({ length: count }, () => build(0));
}

describe("htmlToMarkdown", () => {
  it.each(Object.entries(PAGES))("converts the %s page exactly as turndown did", (_name, html) => {
    const markdown = htmlToMarkdown(html);
    expect(markdown).not.toContain(PLAIN_TEXT_NOTE);
    expect(markdown).toBe(asTurndownMade(html));
  });

  it("converts 800 random small pages exactly as turndown did", () => {
    const differing = randomPages(800, 20_240_601).filter((html) => htmlToMarkdown(html) !== asTurndownMade(html));
    expect(differing).toEqual([]);
  });

  it("nests what `<blockquote/>` opens: HTML closes only void and foreign elements that way", () => {
    expect(htmlToMarkdown(`${"<blockquote/>".repeat(3)}x`)).toBe("> > > x");
    expect(htmlToMarkdown(`${"<blockquote/>".repeat(MARKDOWN_MAX_DEPTH + 1)}x`)).toBe(`${PLAIN_TEXT_NOTE}\n\nx`);
    expect(htmlToMarkdown(`${"<div/>".repeat(MARKDOWN_MAX_DEPTH + 1)}x`)).toBe(`${PLAIN_TEXT_NOTE}\n\nx`);
  });

  it("does not count void elements, self-closing or not, nor self-closing svg and math, as nesting", () => {
    const flat = ["<br/>", "<br>", "<img/>", "<hr/>", "<input/>", "<wbr/>", "<svg/>", "<math/>", "<svg><g/></svg>"];
    for (const tag of flat) expect(htmlToMarkdown(`${tag.repeat(2 * MARKDOWN_MAX_DEPTH)}x`), tag).not.toContain(PLAIN_TEXT_NOTE);
    expect(htmlToMarkdown("<p>a<br/>b</p>")).toBe("a  \nb");
  });

  it("counts the nesting the parser builds, not the tags: a stray end tag closes nothing", () => {
    expect(htmlToMarkdown(`${"<div></span>".repeat(MARKDOWN_MAX_DEPTH + 1)}x`)).toBe(`${PLAIN_TEXT_NOTE}\n\nx`);
    expect(htmlToMarkdown(`${"<blockquote>".repeat(MARKDOWN_MAX_DEPTH)}x`)).toBe(`${"> ".repeat(8)}x`);
  });

  it("draws at most 8 levels of quote prefix; deeper quotes are converted without one", () => {
    expect(htmlToMarkdown(`${"<blockquote>".repeat(7)}<p>seven</p>`)).toBe(asTurndownMade(`${"<blockquote>".repeat(7)}<p>seven</p>`));
    expect(htmlToMarkdown(`${"<blockquote>".repeat(12)}<p>deep</p><p>er</p>`)).toBe(`${"> ".repeat(8)}deep\n${"> ".repeat(8)}\n${"> ".repeat(8)}er`);
  });

  it("indents at most 8 levels of list items, counting quotes among them", () => {
    const items = htmlToMarkdown("<ul><li>item ".repeat(10)).split("\n");
    expect(items).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 8].map((level) => `${"    ".repeat(level)}-   item`));
    // Five quotes each holding a list: the fifth quote and its item are the 9th and 10th levels.
    const [first, second] = htmlToMarkdown(`${"<blockquote><ul><li>".repeat(5)}x<br>y`).split("\n");
    expect(first).toBe(`${"> -   ".repeat(4)}-   x  `);
    expect(second).toBe(`${">     ".repeat(4)}y`);
  });
});

describe("what the parser creates", () => {
  const FORMATTING = "a b big code em font i nobr s small strike strong tt u".split(" ");
  const reopened = (open: string, blocks: number, text = "x") => `<p>${open}</p>${`<p>${text}`.repeat(blocks)}`;

  it("converts a page whose few formatting elements are reopened in every block, as turndown did", () => {
    const html = reopened('<b>bold <font face="Verdana" size="2">', 200, "a short paragraph");
    const markdown = htmlToMarkdown(html);
    expect(markdown).not.toContain(PLAIN_TEXT_NOTE);
    expect(markdown).toBe(asTurndownMade(html));
  });

  it("shows as plain text a page whose reopened elements and their attributes outnumber its characters", () => {
    const attributes = Array.from({ length: 250 }, (_, n) => `a${n}`).join(" ");
    // One element of 250 attributes reopened in 100 blocks: 25,100 made from 1,700 characters.
    expect(htmlToMarkdown(reopened(`<b ${attributes}>`, 100))).toBe(`${PLAIN_TEXT_NOTE}\n\n${"x\n".repeat(99)}x`);
    // No attributes: the parser keeps three identical elements of each kind (one `<a>`, one `<nobr>`) open to reopen.
    const everyKind = FORMATTING.map((tag) => `<${tag}>`.repeat(3)).join("");
    expect(htmlToMarkdown(reopened(everyKind, 1_000))).toContain(PLAIN_TEXT_NOTE);
    expect(htmlToMarkdown(reopened(everyKind, 5))).not.toContain(PLAIN_TEXT_NOTE);
  });

  it("counts what the parser puts in a template's contents, and its depth from the template's own place", () => {
    const everyKind = FORMATTING.map((tag) => `<${tag}>`.repeat(3)).join("");
    expect(htmlToMarkdown(`<template>${reopened(everyKind, 1_000)}</template>x`)).toContain(PLAIN_TEXT_NOTE);
    expect(htmlToMarkdown(`<template>${"<div>".repeat(MARKDOWN_MAX_DEPTH + 1)}</template>x`)).toBe(`${PLAIN_TEXT_NOTE}\n\nx`);
    const half = "<div>".repeat(MARKDOWN_MAX_DEPTH / 2);
    expect(htmlToMarkdown(`${half}<template>${half}</template>x`)).toBe(`${PLAIN_TEXT_NOTE}\n\nx`);
    const page = `<p>before</p><template><p>${"<b>".repeat(3)}</p><p>in</p></template><p>after</p>`;
    expect(htmlToMarkdown(page)).toBe(asTurndownMade(page));
  });
});

describe("convertHtml", () => {
  it("stops adding to the markdown past twice maxChars, keeping what comes first as it was, and counts what it left out", () => {
    const html = `<div>${"<p>para</p>".repeat(2_000)}</div>`;
    const whole = convertHtml(html, 100_000);
    expect(whole).toEqual({ text: asTurndownMade(html), omittedChars: 0 });
    const cut = convertHtml(html, 1_000);
    expect(cut.text.length).toBeGreaterThan(1_000);
    expect(cut.text.length).toBeLessThan(3_000);
    expect(whole.text.startsWith(cut.text)).toBe(true);
    expect(cut.omittedChars).toBeGreaterThan(4 * 1_000);
  });
});

describe("the one-pass replacements of turndown's regular expressions", () => {
  it("isWhitespace is JavaScript's \\s for every UTF-16 code unit", () => {
    const differing: number[] = [];
    for (let code = 0; code <= 0xffff; code += 1) if (isWhitespace(code) !== /\s/.test(String.fromCharCode(code))) differing.push(code);
    expect(differing).toEqual([]);
  });

  it("needsExtraSpace answers turndown's /^`|^ .*?[^ ].* $|`$/ on every string of up to 6 of ` `, `a`, backtick, \\n, U+2028", () => {
    const alphabet = [" ", "a", "`", "\n", "\u2028"];
    const differing: string[] = [];
    let strings = [""];
    for (let length = 1; length <= 6; length += 1) {
      strings = strings.flatMap((text) => alphabet.map((char) => text + char));
      for (const text of strings) if (needsExtraSpace(text) !== /^`|^ .*?[^ ].* $|`$/.test(text)) differing.push(text);
    }
    expect(differing).toEqual([]);
  });
});
