// WebFetch's plain-text fallback for large pages, and the nesting count that picks it, matched tags
// with `<[^>]*>`: at a `<` that no `>` follows, the pattern scans to the end of the page, fails, and
// starts again at the next `<`. A page of `<a<a<a…` (no `>` anywhere) is quadratic: 300 KB blocked
// the event loop for 70 s, 80 KB under the fallback's threshold for 10 s in the nesting count, and a
// 5 MB page (within WebFetch's byte cap) for hours: the server or worker, every job and webhook with it.
//
// Fixed: every tag pattern of net/html-to-markdown.ts also ends at the end of the page, so no match
// fails after scanning (an unclosed tag at the end is dropped, as a browser drops it).
//
// No clock: on the code before, the larger pages do not finish within the test's timeout.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer, type PageServer } from "../fakes/page-server.js";
import { htmlToMarkdown, PLAIN_TEXT_NOTE } from "../../src/net/html-to-markdown.js";
import { createWebFetcher } from "../../src/net/index.js";

let server: PageServer;
let origin = "";
let pattern = "";
const pages: Record<string, string> = {
  // Under the fallback's 256 K characters: the nesting count reads it.
  "/unclosed-small": `<html><body><p>before</p>${"<a".repeat(120_000)}`,
  // Over it: the plain-text fallback reads it (400 KB: two minutes on the code before; 5 MB, hours).
  "/unclosed-large": `<html><body><p>before</p>${"<a".repeat(200_000)}`,
  "/unclosed-blocks": `<html><body><p>before</p>${"<div".repeat(100_000)}`,
};

beforeAll(async () => {
  server = await startPageServer(pages);
  ({ origin, pattern } = server);
});
afterAll(() => server.close());

describe("WebFetch on a page of tags that never close", () => {
  it.each([
    // One unclosed tag to the end: no nesting, so markdown.
    ["/unclosed-small", "before"],
    ["/unclosed-large", `${PLAIN_TEXT_NOTE}\n\nbefore`],
    ["/unclosed-blocks", `${PLAIN_TEXT_NOTE}\n\nbefore`],
  ])("reads %s in one pass, keeping the text before the tags", async (path, text) => {
    const page = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}${path}`, new AbortController().signal);
    expect(page.text).toBe(text);
  });

  it("still strips ordinary tags and keeps text around a stray `<` that a `>` follows", () => {
    const large = `<p>${"x".repeat(300_000)}</p><p>a <b>bold</b> word</p>`;
    expect(htmlToMarkdown(large).endsWith("a bold word")).toBe(true);
  });
});
