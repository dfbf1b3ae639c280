import { describe, expect, it } from "vitest";
import { MARKDOWN_MAX_ATTRIBUTES } from "../../../src/net/html-to-markdown.js";
import type { DomNode } from "../../../src/net/markdown/dom.js";
import { hasManyAttributes } from "../../../src/net/markdown/has-many-attributes.js";
import { parseHtml } from "../../../src/net/markdown/parse-html.js";

/** The most attributes domino gave one element of the page (it keeps the first of duplicate names). */
function mostParsed(html: string): number {
  const root = parseHtml(html, { maxDepth: 1_000, maxAttributes: 1_000 }) as DomNode;
  let most = 0;
  const open: DomNode[] = [];
  for (let child = root.firstChild; child !== null; child = child.nextSibling) open.push(child);
  for (let node = open.pop(); node !== undefined; node = open.pop()) {
    if (node.nodeType === 1) most = Math.max(most, (node as unknown as { attributes: { length: number } }).attributes.length);
    for (let child = node.firstChild; child !== null; child = child.nextSibling) open.push(child);
  }
  return most;
}

describe("hasManyAttributes", () => {
  it.each([
    ["<p a b c>", 3],
    ['<p a="x > y z" b>', 2],
    ["<p a=1b=2>", 1],
    [`<p a="1"b="2"c='3'>`, 3],
    ["<p/a/b/c/>", 3],
    ["<p = a>", 2],
    ["<p a = 'b' c>", 2],
    ["</p a b>", 2],
    ["<p a b", 2],
    ['<p a="never closed b c d', 1],
  ])("counts the attributes of %s as the tokenizer splits them (%i)", (html, count) => {
    expect(hasManyAttributes(html, count - 1)).toBe(true);
    expect(hasManyAttributes(html, count)).toBe(false);
  });

  it("finds a tag however the text before it reads: in a script, a comment or a quoted value", () => {
    const attributes = Array.from({ length: 300 }, (_, n) => ` a${n}`).join("");
    for (const before of ["<script>x = \"<b y='</script>", '<!-- <b y=" -->', "<p title='<b y=\"'>", '<textarea><b y="</textarea>']) {
      const html = `${before}<p${attributes}>text</p>`;
      expect(mostParsed(html), before).toBeGreaterThan(256);
      expect(hasManyAttributes(html, 256), before).toBe(true);
    }
  });

  it("counts at least the attributes domino keeps, on random pages of names, quotes, slashes and brackets", () => {
    let state = 7;
    const random = () => {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      return state / 2_147_483_648;
    };
    const pieces = [" ", "/", "=", '"', "'", ">", "<", "\n", "<p", "</p", "<!--", "-->", "<script>", "</script>"];
    const undercounted: string[] = [];
    for (let page = 0; page < 2_000; page += 1) {
      let html = "<p";
      for (let n = 0; n < 30; n += 1) html += random() < 0.5 ? `n${n}` : (pieces[Math.floor(random() * pieces.length)] as string);
      const most = mostParsed(html);
      // The wrapper element has one attribute of its own, so a bound below one says nothing.
      if (most > 1 && parseHtml(html, { maxDepth: 1_000, maxAttributes: most - 1 }) !== undefined) undercounted.push(html);
    }
    expect(undercounted).toEqual([]);
  });

  it("lets a page of ordinary tags through", () => {
    const tag = `<img ${Array.from({ length: MARKDOWN_MAX_ATTRIBUTES }, (_, n) => `data-${n}="v ${n}"`).join(" ")}>`;
    expect(hasManyAttributes(`<p class="a" id=b>${tag.repeat(50)}</p>`, MARKDOWN_MAX_ATTRIBUTES)).toBe(false);
  });
});
