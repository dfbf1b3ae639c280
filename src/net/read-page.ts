import { pipeline, Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import zlib from "node:zlib";
import type { WebPage } from "../agent/ports.js";
import { TackleError } from "../errors/index.js";
import { convertHtml } from "./html-to-markdown.js";

export interface PageLimits {
  /** Body bytes read (after decompression); the rest is never read. */
  maxBytes: number;
  /** Characters of text kept. */
  maxChars: number;
}

const HTML = new Set(["text/html", "application/xhtml+xml"]);

/**
 * Reads a final (non-redirect) response into a page: HTML as markdown, other text as it is, decoded
 * with its declared charset (UTF-8 by default). Anything but text is refused before its body is read.
 * What the markdown conversion left out to stay within its bound counts as truncated.
 */
export async function readPage(url: URL, response: Response, limits: PageLimits): Promise<WebPage> {
  const { mime, charset } = parseContentType(response.headers.get("content-type") ?? undefined);
  const html = HTML.has(mime);
  if (!html && !isText(mime)) {
    await response.body?.cancel();
    throw new TackleError("fetch_failed", `${url.href} is ${mime === "" ? "of no declared type" : mime}, not text: WebFetch reads HTML, text, JSON and XML`);
  }
  const { bytes, cut } = await readBody(response, limits.maxBytes);
  const decoded = decode(bytes, charset ?? (html ? sniffMetaCharset(bytes) : undefined));
  const { text: full, omittedChars } = html ? convertHtml(decoded, limits.maxChars) : { text: decoded, omittedChars: 0 };
  const text = cutAt(full, limits.maxChars);
  return {
    url: url.href,
    status: response.status,
    contentType: mime,
    text,
    truncatedChars: full.length - text.length + omittedChars + unread(response, cut, limits),
    cached: false,
  };
}

function isText(mime: string): boolean {
  return mime.startsWith("text/") || /^application\/(?:[\w.-]+\+)?(?:json|xml)$/.test(mime);
}

function parseContentType(header: string | undefined): { mime: string; charset: string | undefined } {
  const [type = "", ...params] = (header ?? "").split(";");
  const charset = params.map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?\s*$/i.exec(param)?.[1]).find((value) => value !== undefined);
  return { mime: type.trim().toLowerCase(), charset };
}

/** Reads at most maxBytes; one byte more tells that the body went on, and then reading stops (the socket with it). */
async function readBody(response: Response, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (response.body === null) return { bytes: Buffer.alloc(0), cut: false };
  const raw = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  try {
    for await (const chunk of decompressed(raw, response.headers)) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > maxBytes) break;
    }
  } finally {
    raw.destroy();
  }
  const bytes = Buffer.concat(chunks);
  return size > maxBytes ? { bytes: bytes.subarray(0, maxBytes), cut: true } : { bytes, cut: false };
}

function decompressed(response: Readable, headers: Headers): Readable {
  const encoding = (headers.get("content-encoding") ?? "identity").trim().toLowerCase();
  const ignore = () => {}; // an error also destroys the last stream, whose reader sees it
  if (encoding === "identity" || encoding === "") return response;
  if (encoding === "gzip" || encoding === "x-gzip") return pipeline(response, zlib.createGunzip(), ignore);
  if (encoding === "deflate") return pipeline(response, zlib.createInflate(), ignore);
  if (encoding === "br") return pipeline(response, zlib.createBrotliDecompress(), ignore);
  response.destroy();
  throw new TackleError("fetch_failed", `the server sent the body with content encoding ${JSON.stringify(encoding)}, which WebFetch cannot decode`);
}

function decode(bytes: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? "utf-8").decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes); // an unknown label: UTF-8, the web's default
  }
}

/** `<meta charset=…>` or its http-equiv form, in the first 1024 bytes as HTML requires. */
function sniffMetaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 1024).toString("latin1");
  return /<meta[^>]+charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
}

/** Cuts before a surrogate pair rather than through it. */
function cutAt(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const end = /[\uDC00-\uDFFF]/.test(text.charAt(maxChars)) ? maxChars - 1 : maxChars;
  return text.slice(0, end);
}

/**
 * A body cut at maxBytes still counts as truncated text: the bytes its Content-Length says were
 * left unread stand for characters, and at least 1, so 0 always means "the whole page".
 */
function unread(response: Response, cut: boolean, limits: PageLimits): number {
  if (!cut) return 0;
  const length = Number(response.headers.get("content-length"));
  const identity = response.headers.get("content-encoding") === null;
  return identity && Number.isFinite(length) && length > limits.maxBytes ? length - limits.maxBytes : 1;
}
