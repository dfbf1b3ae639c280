/**
 * Broken (red team of #20, sixth pass, WebFetch HTML→Markdown): the conversion bounds the page's size
 * (256 K characters), its depth (256) and the attributes of any one tag (256), each alone, and the code
 * says parsing costs "a few seconds a megabyte". The parser's formatting-element reconstruction is not
 * bounded by any of them together: a formatting element (`<b>`, `<i>`, `<u>`, …) left open when its
 * paragraph closes stays on the list of active formatting elements, and every later text in a new
 * block reopens it, as a clone with all its attributes. So one `<b>` of 250 attributes written once,
 * followed by `<p>x` repeated, makes the parser copy 250 attributes for every 4 bytes of the page; with
 * several such elements, several times that. Measured on this two-core machine, on the event loop:
 *
 * - `<p><b a0 … a249></p>` + `<p>x` × 60,000 (240 KB, under the cap): 40 s (a page of plain `<p>x`: 0.5 s);
 * - the same with `<b>`, `<i>` and `<u>` of 250 attributes each: 19 KB took 6.2 s and 370 MB of heap,
 *   and at 240 KB the process reached its 4 GB heap limit: `FATAL ERROR: Reached heap limit Allocation
 *   failed - JavaScript heap out of memory`, the whole Tackle process aborted by one page the model fetched;
 * - this test's page (twenty such `<b>`, then `<p>x` × 1,500: 26 KB): 20.6 s, against 0.73 s for 26 KB of
 *   plain paragraphs.
 *
 * What should hold: converting a page costs time and memory about linear in its bytes, whatever the
 * attributes of its formatting elements (or such a page is shown as plain text, as a too-deep one is).
 * Measured as a ratio with a generous factor: a page reopening twenty 250-attribute formatting elements
 * may take at most ten times as long as a page of as many bytes of plain paragraphs.
 *
 * Fixed in src/net/markdown/parse-html.ts: the parser's own insertions are counted, each element with its
 * attributes (reopened copies, adoption-agency clones and a template's contents included), and past the
 * characters the parser reads the page is shown as plain text, as a too-deep one is.
 */
import { describe, expect, it } from "vitest";
import { convertHtml } from "../../src/net/html-to-markdown.js";

const attributes = (element: number) => [`k=${element}`, ...Array.from({ length: 249 }, (_, i) => `a${i}`)].join(" ");
/** Twenty `<b>` that differ (so the parser keeps all twenty), each of 250 attributes, then `<p>x` × reps. */
function reopening(reps: number): string {
  const open = Array.from({ length: 20 }, (_, element) => `<b ${attributes(element)}>`).join("");
  return `<p>${open}</p>${"<p>x".repeat(reps)}`;
}
/** Plain paragraphs, `length` characters of them. */
const paragraphs = (length: number) => "<p>x".repeat(Math.ceil(length / 4));

function timeConvert(html: string): number {
  const start = performance.now();
  convertHtml(html, 100_000);
  return performance.now() - start;
}

describe("WebFetch's conversion of a page that reopens formatting elements with many attributes", () => {
  it("costs about what a page of as many bytes of plain paragraphs costs", () => {
    const html = reopening(1_500);
    timeConvert(paragraphs(html.length)); // warm up the parser
    const plain = timeConvert(paragraphs(html.length));
    const withAttributes = timeConvert(html);
    expect(withAttributes).toBeLessThan(10 * Math.max(plain, 50));
  }, 300_000);
});
