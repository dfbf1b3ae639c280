// WebFetch converted every HTML page with turndown on the host's event loop, after the fetch's time
// limit stopped mattering: a 5 MB page froze the server or worker for about 17 s, 1 MB of nested
// <div>s for minutes, and about 4 000 levels of nesting crashed the converter with a stack overflow.
// Pages past 256 K characters or 256 levels are now shown as plain text made in one linear pass.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPageServer, type PageServer } from "../fakes/page-server.js";
import { createWebFetcher } from "../../src/net/index.js";
import { htmlToMarkdown, PLAIN_TEXT_NOTE } from "../../src/net/html-to-markdown.js";

let server: PageServer;
let origin = "";
let pattern = "";
const pages: Record<string, string> = {
  "/nested": `<html><body>${"<div>".repeat(12_000)}deep &amp; down</body></html>`,
  "/large": `<html><body>${"<p>a</p>".repeat((5 * 1024 * 1024) / 8 - 10)}<p>the end</p></body></html>`,
  "/small": "<html><body><h1>Guide</h1><p>Use <code>npm ci</code>.</p><script>alert(1)</script></body></html>",
};

beforeAll(async () => {
  server = await startPageServer(pages);
  ({ origin, pattern } = server);
});
afterAll(() => server.close());

describe("WebFetch's HTML conversion", () => {
  it("shows a deeply nested page as plain text instead of overflowing the converter's stack", async () => {
    const page = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/nested`, new AbortController().signal);
    expect(page.text).toBe(`${PLAIN_TEXT_NOTE}\n\ndeep & down`);
  });

  it("shows a 5 MB page as plain text, cut to the text cap, rather than converting all of it", async () => {
    const page = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/large`, new AbortController().signal);
    expect(page.text.startsWith(`${PLAIN_TEXT_NOTE}\n\na\n\na\n\n`)).toBe(true);
    expect(page.text.length).toBe(100_000);
    expect(page.truncatedChars).toBeGreaterThan(1_000_000);
  });

  it("still converts an ordinary page to markdown, without its scripts", async () => {
    const page = await createWebFetcher({ allow: [pattern] }).fetch(`${origin}/small`, new AbortController().signal);
    expect(page.text).toBe("# Guide\n\nUse `npm ci`.");
  });

  it("does not count elements HTML lets authors leave open as nesting", () => {
    const sloppy = `<ul>${"<li>item".repeat(2_000)}</ul>`;
    expect(htmlToMarkdown(sloppy)).not.toContain(PLAIN_TEXT_NOTE);
  });
});
