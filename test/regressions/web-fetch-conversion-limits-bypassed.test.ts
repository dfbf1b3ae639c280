// WebFetch converts a page with turndown on the host's event loop only under 256 K characters and 256
// levels of nesting (html-to-markdown.ts, after web-fetch-html-conversion-blocks-event-loop.test.ts).
// Both limits miss what the conversion costs:
// - the depth is counted by a regex that skips every tag ending in `/>`, but in HTML `<blockquote/>`
//   (or `<div/>`, `<ul/>`) is an open tag like any other: the parser nests it. A page of
//   `<blockquote/>` × 1000 counts as depth 0 and is converted at depth 1000;
// - the cost grows with the depth times the text under it (each line of a quote is prefixed by `> ` per
//   level), not with the page's length: 256 real levels of `<blockquote>` and then `x<br>` to the
//   256 K cap made 26.7 M characters of markdown and held the event loop for 33 s, within both limits.
// Measured on this machine: `<blockquote/>` × 1000 and `x<br>` to the cap held the loop for 351 s
// (100 M characters made, then cut to 100 000), × 700 (the first case here) for 223 s; `<div/>` × 8000
// held it for 14 s and then overflowed the stack (the fetch fails with "Maximum call stack size
// exceeded"). The fetch's
// 30 s deadline does not reach a synchronous conversion. The page is the attacker's (any public host
// when TACKLE_FETCH_ALLOW is unset; here a loopback server the test opens as an exact ip:port) and the
// call is the model's, so a prompt-injected job can freeze its `tackle server` (every job, webhook and
// queue lock renewal of the process) for minutes per WebFetch, changing the query string to pass the
// cache. On the code before, the first case takes minutes, past the test's timeout.
//
// Fixed (net/markdown/): the depth is the parser's own, checked on every node as the parser places it
// (parse-html.ts), so `<blockquote/>`, stray end tags and reopened formatting tags all count as what
// they build, and parsing stops at the first node past the limit; the conversion (turndown's, ported)
// walks the tree with its own stack, draws at most 8 levels of quote or list prefix on a line, and
// stops adding to an element past twice the characters WebFetch returns (the rest counted in
// truncatedChars), so its work is bounded by the depth times that cap. The last two cases are the
// 33 s one, within both limits: 256 levels of `<blockquote>` with `x<br>` to the cap, and the same
// quotes around a `<pre>` of 199 000 lines, which on the code before made 13 G characters of
// prefixes (minutes, past the test's timeout) and now makes the same 8-level lines as the first.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer, type PageServer } from "../fakes/page-server.js";
import { createWebFetcher } from "../../src/net/index.js";
import { MARKDOWN_MAX_CHARS, MARKDOWN_MAX_DEPTH } from "../../src/net/html-to-markdown.js";

let server: PageServer;
let origin = "";
let pattern = "";

/** `open` and then `x<br>` lines up to the conversion's character cap. */
function page(open: string): string {
  const lines = Math.floor((MARKDOWN_MAX_CHARS - open.length - 64) / 5);
  return `${open}${"x<br>".repeat(lines)}`;
}

/** 256 levels of quote: the depth limit, with the `<pre>`'s text inside 255 of them and the `<pre>`. */
const quotes = "<blockquote>".repeat(MARKDOWN_MAX_DEPTH);
const PREFIX = "> ".repeat(8);

const pages: Record<string, string> = {
  "/self-closing": page("<blockquote/>".repeat(700)),
  "/self-closing-divs": page("<div/>".repeat(8_000)),
  "/quoted-lines": page(quotes),
  "/quoted-pre": `${quotes.slice("<blockquote>".length)}<pre>x${"\n".repeat(199_000)}x</pre>`,
};

beforeAll(async () => {
  server = await startPageServer(pages);
  ({ origin, pattern } = server);
});
afterAll(() => server.close());

describe("WebFetch's conversion limits", () => {
  it("count `<blockquote/>` as the open tag HTML parses it as, and bound what the nesting makes", async () => {
    const fetched = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/self-closing`, new AbortController().signal);
    expect(fetched.text.length).toBeLessThanOrEqual(100_000);
  });

  it("show a page of `<div/>` × 8000 (depth 8000 to the parser) as something, not a stack overflow", async () => {
    const fetched = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/self-closing-divs`, new AbortController().signal);
    expect(fetched.text).toContain("x");
  });

  it("draw 8 levels of `> ` on each line of 256 levels of `<blockquote>` around `x<br>` to the cap", async () => {
    const fetched = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/quoted-lines`, new AbortController().signal);
    const lines = fetched.text.split("\n");
    expect(lines.length).toBeGreaterThan(1_000);
    expect(lines.slice(0, -1).filter((line) => line !== `${PREFIX}x  `)).toEqual([]);
    expect(fetched.text.length).toBe(100_000);
    expect(fetched.truncatedChars).toBeGreaterThan(0);
  });

  it("make the same lines of a `<pre>` of 199 000 lines in those quotes, in time linear in the page", async () => {
    const fetched = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/quoted-pre`, new AbortController().signal);
    const lines = fetched.text.split("\n");
    expect(lines[0]).toBe(`${PREFIX}x`);
    expect(lines.slice(1, -1).filter((line) => line !== PREFIX)).toEqual([]);
    expect(fetched.text.length).toBe(100_000);
    expect(fetched.truncatedChars).toBeGreaterThan(0);
  });
});
