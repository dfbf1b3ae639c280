// The one rule for text on Tackle's own surfaces (the tracking comment, replies, the approval question,
// what the host adds to a PR body, the Action's step summary): what GitHub renders there is either
// Tackle's own markup or text made inert. `SurfaceMarkdown` is the type of such a text; only this file
// makes one, and the GitHub client's write methods and the step summary's writer take nothing else.
import { oneLineCodeSpans } from "./markdown-code.js";
import { neutralizeProse } from "./neutralize-prose.js";
import { INVISIBLE_CHARACTERS } from "./sanitize-untrusted-text.js";
import { truncateMiddle } from "./truncate-middle.js";

declare const surfaceMarkdown: unique symbol;

/**
 * Markdown fit for a surface where GitHub shows it as Tackle's: built by `md` from the constructors
 * below, with every outside text passed through `inert` (shown as written, nothing live) or, for the
 * agent's prose, `agentProse`. A plain string does not convert to it, so a text that skipped the
 * escaper does not compile where it would be posted.
 */
export type SurfaceMarkdown = string & { readonly [surfaceMarkdown]: true };

/** The one cast: every function of this file that returns a SurfaceMarkdown goes through it. */
function trusted(markdown: string): SurfaceMarkdown {
  return markdown as SurfaceMarkdown;
}

/**
 * Tackle's own markup: the template's literal parts are Tackle's code, and each interpolation must
 * already be a SurfaceMarkdown (or a number), so outside text cannot be spliced in raw.
 */
export function md(strings: TemplateStringsArray, ...values: ReadonlyArray<SurfaceMarkdown | number>): SurfaceMarkdown {
  let result = strings[0] ?? "";
  values.forEach((value, index) => {
    result += String(value) + (strings[index + 1] ?? "");
  });
  return trusted(result);
}

/** Parts joined by one of Tackle's own separators. */
export function joinMarkdown(parts: readonly SurfaceMarkdown[], separator: "\n" | "\n\n" | ", " | " " | "" = "\n"): SurfaceMarkdown {
  return trusted(parts.join(separator));
}

export interface InertOptions {
  /** Longest text shown, in characters of the original; the rest is cut with "…". @defaultValue no limit */
  maxChars?: number;
}

/**
 * Any text shown as the characters it is, on one line, whatever it holds: no link, image, HTML, entity,
 * emphasis, strikethrough, math, heading, list, quote or table cell of its own, and nobody pinged or
 * issue cross-referenced. Words GitHub would turn into a link or a ping (`https://…`, `www.…`, an
 * e-mail, `@name`, `#12`, `owner/repo#12`, `GH-12`) become code spans, which GitHub leaves alone; a code
 * span already there (one line, no `|`) stays one, being inert too; the rest is backslash-escaped, the
 * redactor's `[REDACTED…]` masks aside. Line breaks become spaces, so the text cannot leave the list
 * item or table cell it is put in. An underscore inside a word (`ghp_…`, `snake_case`) is left as it
 * is: it cannot start emphasis there, and a token's shape stays whole for the redactor.
 */
export function inert(text: string, options: InertOptions = {}): SurfaceMarkdown {
  let flat = text.replace(INVISIBLE_CHARACTERS, "").replace(/\s+/gu, " ").trim();
  if (options.maxChars !== undefined && flat.length > options.maxChars) flat = `${cutAt(flat, Math.max(0, options.maxChars - 1)).trimEnd()}…`;
  let escaped = "";
  let position = 0;
  // A code span kept as one (`oneLineCodeSpans`: not opened by an escaped backtick, no `|`) is inert
  // already, and a text from the host quotes names that way; every other backtick is escaped, so
  // GitHub pairs only these.
  // A code span this makes must not touch a kept one: two runs of backticks that touch are one run, and
  // then none of them pair (``x``https://… showed a live link): a space goes between.
  const join = (left: string, right: string) => (left.endsWith("`") && right.startsWith("`") ? `${left} ${right}` : left + right);
  for (const span of oneLineCodeSpans(flat)) {
    escaped = join(join(escaped, escapeWords(flat.slice(position, span.start))), flat.slice(span.start, span.end));
    position = span.end;
  }
  return trusted(escapeLineStart(join(escaped, escapeWords(flat.slice(position)))));
}

function escapeWords(text: string): string {
  return text
    .split(" ")
    .map((word) =>
      word
        .split(/([`|])/)
        .map(escapeSegment)
        .join(""),
    )
    .join(" ");
}

/** A word (or the part of one between backticks and pipes) as inert Markdown. */
function escapeSegment(segment: string): string {
  if (segment === "`" || segment === "|") return `\\${segment}`;
  if (LINKY.test(segment)) {
    const [before, address, after] = splitPunctuation(segment);
    if (LINKY.test(address)) return `${escapePlain(before)}\`${address}\`${escapePlain(after)}`;
  }
  // A mask the redactor put in stays readable as `[REDACTED…]`; what follows it cannot make it a link.
  return segment
    .split(/(\[REDACTED(?::[a-z0-9-]+)?\])/)
    .map((part, index) => (index % 2 === 1 ? part : escapePlain(part).replace(/^[(:]/, (char) => (index > 0 ? `\\${char}` : char))))
    .join("");
}

/**
 * A word as its opening punctuation, its middle and its closing punctuation (`(`, `@octocat`, `),`):
 * the leading run of `("'<[`, then the trailing run of `)"'>].,;:!?` in what is left. Two scans, not
 * a regular expression with a lazy middle, which retried the whole closing run from each of its
 * characters when the word went on after it (quadratic in the word).
 */
function splitPunctuation(word: string): [string, string, string] {
  let start = 0;
  while (start < word.length && OPENING_PUNCTUATION.has(word.charAt(start))) start++;
  let end = word.length;
  while (end > start && CLOSING_PUNCTUATION.has(word.charAt(end - 1))) end--;
  return [word.slice(0, start), word.slice(start, end), word.slice(end)];
}

const OPENING_PUNCTUATION = new Set([..."(\"'<["]);
const CLOSING_PUNCTUATION = new Set([...")\"'>].,;:!?"]);

function escapePlain(text: string): string {
  let result = "";
  for (let index = 0; index < text.length; index++) {
    const char = text.charAt(index);
    // Inside a word (`snake_case`, `ghp_…`) an underscore never opens emphasis; next to `-` or another `_` it may (`-_x_-`).
    if (char === "_" && LETTER_OR_DIGIT.test(text.charAt(index - 1)) && LETTER_OR_DIGIT.test(text.charAt(index + 1))) result += char;
    else result += ESCAPED.has(char) ? `\\${char}` : char;
  }
  return result;
}

/**
 * What GitHub links or pings in plain text: URLs, `www.`, e-mails and mentions, issue references. A
 * `www.` address or `GH-12` is linked after punctuation too (`(www.…`, `_www.…_`), so they are looked
 * for anywhere in a word, not only at its start.
 */
const LINKY = /:\/\/|www\.|@[\p{L}\p{N}]|#\p{N}|(?<![\p{L}\p{N}])gh-\p{N}/iu;
/** A letter or digit: an underscore between two never opens emphasis. */
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
/** Characters that start inline markup anywhere in a line. */
const ESCAPED = new Set(["\\", "*", "_", "~", "[", "]", "<", ">", "&", "$", "!"]);

/** What makes a block when it starts a line: a heading, quote, list item, thematic break. */
function escapeLineStart(text: string): string {
  const ordered = /^(\p{N}{1,9})([.)])(?= |$)/u.exec(text);
  if (ordered) return `${ordered[1]}\\${ordered[2]}${text.slice(ordered[0].length)}`;
  return /^[#>+=-]/.test(text) ? `\\${text}` : text;
}

/** `text` cut to `length` UTF-16 units without splitting a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** Inline code showing `text` as is, on one line. Not for a table cell: a `|` there would split it. */
export function code(text: string): SurfaceMarkdown {
  const flat = text.replace(INVISIBLE_CHARACTERS, "").replace(/\s+/gu, " ");
  if (flat.trim() === "") return inert(flat);
  const longest = Math.max(0, ...[...flat.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(longest + 1);
  // A space on each side is stripped by the renderer; it is needed only beside a backtick or a space.
  const pad = /^[` ]|[` ]$/.test(flat) ? " " : "";
  return trusted(`${fence}${pad}${flat}${pad}${fence}`);
}

/** A fenced code block showing `text` as is, its fence longer than any backtick run inside. */
export function codeBlock(text: string, language: "sh" | "json" | "" = ""): SurfaceMarkdown {
  const clean = text.replace(INVISIBLE_CHARACTERS, "");
  const longest = Math.max(0, ...[...clean.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return trusted(`${fence}${language}\n${clean}\n${fence}`);
}

/**
 * A link Tackle makes to an address it owns (the PR, the dashboard, a download): http(s) only, its
 * `(`, `)` and spaces percent-encoded so the address cannot end the link early.
 */
export function link(label: SurfaceMarkdown, url: string): SurfaceMarkdown {
  // A `]` in the label would end the link text; an escaped one is text.
  return trusted(`[${escapeUnescaped(label, "]")}](${hostUrl(url)})`);
}

/** A mention Tackle means to make (the user who asked): a GitHub login, or the text inert when it is not one. */
export function mention(login: string): SurfaceMarkdown {
  return /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/.test(login) ? trusted(`@${login}`) : inert(`@${login}`);
}

/** A hidden marker Tackle finds its own comments by; the text is host-made (a job id). */
export function hiddenMarker(text: string): SurfaceMarkdown {
  if (!/^[\w .:=/-]*$/.test(text)) throw new Error("a marker holds letters, digits and . : = / - only");
  return trusted(`<!-- ${text} -->`);
}

/** One table row; a `|` in a cell that is not already escaped is escaped, so no cell is split. */
export function tableRow(cells: readonly SurfaceMarkdown[]): SurfaceMarkdown {
  return trusted(`| ${cells.map((cell) => escapeUnescaped(cell, "|")).join(" | ")} |`);
}

/** `char` escaped wherever it is not already: after an even run of backslashes (none included). */
function escapeUnescaped(text: string, char: "|" | "]"): string {
  let result = "";
  let backslashes = 0;
  for (const c of text) {
    if (c === char && backslashes % 2 === 0) result += "\\";
    result += c;
    backslashes = c === "\\" ? backslashes + 1 : 0;
  }
  return result;
}

export interface AgentProseOptions {
  /** Longest text kept, in characters of the original; the middle is cut and the cut said. @defaultValue no limit */
  maxChars?: number;
  /** What the cut note says. @defaultValue "cut to fit" */
  hint?: string;
}

/**
 * The agent's own prose, meant to be read as Markdown (task_done's summary, a ReportToIssue comment,
 * the PR body it wrote): formatting, lists, tables, code and bare URLs stay; what would pass for
 * Tackle's own or reach beyond the page does not (see `neutralizeProse`). The only other way outside
 * text becomes a SurfaceMarkdown. `text` must already be masked: escaping can split a secret so that
 * the redactor no longer finds it.
 */
export function agentProse(text: string, options: AgentProseOptions = {}): SurfaceMarkdown {
  const clean = text.replace(INVISIBLE_CHARACTERS, "");
  const cut = options.maxChars === undefined ? clean : truncateMiddle(clean, options.maxChars, options.hint ?? "cut to fit");
  return trusted(neutralizeProse(cut));
}

/**
 * A SurfaceMarkdown passed through a redactor (the redacting GitHub client's last pass). A mask may
 * swallow any character (a private key block from its BEGIN line to its END line, a URL's password up
 * to its `@`), and this text is escaped already: a mask that took Markdown's own characters with it
 * (a code span's backtick, an escaping backslash, a line break) would change what renders, making
 * the content of a code span prose again. So a mask may take a token's characters only (letters,
 * digits, spaces and `_-.+/=:%@`): when masking the whole text finds more than masking each run of
 * those alone, the masked text is shown as a code block, Tackle's hidden markers kept above it. The
 * mask `[REDACTED…]` is text: a `(` or `:` right after it is escaped, so it cannot make a link, and
 * a word joiner follows an `@` after it (a URL's masked password), so nobody is pinged.
 */
export function maskSurface(markdown: SurfaceMarkdown, redact: (text: string) => string): SurfaceMarkdown {
  const masked = redact(markdown);
  if (masked !== markdown && masked !== markdown.replace(TOKEN_RUN, (run) => redact(run))) return trusted(asCodeBlock(masked));
  // A secret that only the rendering joins (a backslash escape, emphasis or an invisible character
  // inside it): found in what GitHub shows, the whole text is shown as code, masked there.
  for (const view of renderedViews(masked)) {
    // Where rendering changes nothing, the text was masked already: no second pass over it.
    if (view === masked) continue;
    const maskedView = redact(view);
    if (maskedView !== view) return trusted(asCodeBlock(maskedView));
  }
  return trusted(defuseMasks(masked));
}

/**
 * Text close to what GitHub shows for `markdown`: backslash escapes dropped (their character kept),
 * emphasis and strikethrough runs and invisible characters removed; once with underscores kept
 * (a token's shape holds them) and once without (emphasis made of them).
 */
function renderedViews(markdown: string): string[] {
  const shown = markdown
    .replace(/\\([!-/:-@[-`{-~])/g, "$1")
    .replace(/[*~]+/g, "")
    .replace(INVISIBLE_CHARACTERS, "");
  return [shown, shown.replace(/_+/g, "")];
}

/**
 * After each mask, its `]` (the first `]` after `[REDACTED` on its line): a `(` or `:` escaped, and a
 * word joiner after an `@` followed by a letter or digit. Masks that end at the same `]` are one mask
 * here, so each character is read once: a regular expression read to the line's end from every
 * `[REDACTED` that no `]` closes (quadratic on many of them).
 */
function defuseMasks(text: string): string {
  let result = "";
  let position = 0;
  for (let mask = text.indexOf(MASK_START); mask !== -1; ) {
    let end = mask + MASK_START.length;
    while (end < text.length && text.charAt(end) !== "]" && text.charAt(end) !== "\n") end++;
    const next = text.charAt(end) === "]" ? text.charAt(end + 1) : "";
    if (next === "(" || next === ":") {
      result += `${text.slice(position, end + 1)}\\`;
      position = end + 1;
    } else if (next === "@" && /^[\p{L}\p{N}]/u.test(text.slice(end + 2, end + 4))) {
      result += `${text.slice(position, end + 2)}\u2060`;
      position = end + 2;
    }
    mask = text.indexOf(MASK_START, end + 1);
  }
  return result + text.slice(position);
}

const MASK_START = "[REDACTED";

/** A run of the characters a mask may take without changing the Markdown around it. */
const TOKEN_RUN = /[A-Za-z0-9_\-.+/=:%@ ]+/g;

/** Masked text whose Markdown a mask changed: its leading hidden markers, then the rest as a code block. */
function asCodeBlock(masked: string): string {
  const lines = masked.split("\n");
  let markers = 0;
  while (markers < lines.length && /^<!-- [\w .:=/-]* -->$/.test(lines[markers] as string)) markers++;
  const note = "_Tackle shows this text as code: masking a secret in it would have changed how it reads._";
  return [...lines.slice(0, markers), note, "", codeBlock(lines.slice(markers).join("\n"))].join("\n");
}

/** An address Tackle owns (a pull request's), shown bare so GitHub links it; http(s) only. */
export function hostUrl(url: string): SurfaceMarkdown {
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new Error(`not an http(s) address: ${parsed.protocol}`);
  return trusted(parsed.href.replace(/[()\s<>`|]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`));
}

/** A block quote around `markdown`: how a surface sets the agent's prose apart from Tackle's own text. */
export function quote(markdown: SurfaceMarkdown): SurfaceMarkdown {
  return trusted(
    markdown
      .split("\n")
      .map((line) => (line === "" ? ">" : `> ${line}`))
      .join("\n"),
  );
}
