import { truncateMiddle } from "./truncate-middle.js";

/**
 * Masks credentials in text before it reaches the model, a log, or GitHub. Known token formats are
 * masked by shape; the job's own secrets are masked by value, whatever their shape.
 *
 * The formats match anywhere in a string, not only at a word boundary: a token glued to a word
 * character (`Xghs_…`, `_ghs_…`, `\nghs_…` in a JSON-escaped line) is still a token. What keeps prose
 * and code from being masked is each format's own shape (a distinctive prefix and a minimum length),
 * not the characters around it.
 */
declare const masked: unique symbol;

/**
 * Text that went through a redactor. Only this module makes one (test/unit/util/masked-sinks.test.ts
 * refuses a cast anywhere else), so a sink that requires `Masked` cannot be handed text that skipped
 * redaction: a forgotten redaction fails to compile (the same test's `@ts-expect-error` lines).
 */
export type Masked = string & { readonly [masked]: true };

/** Bytes that went through a redactor (an artifact's content): made by `maskBytes` only. */
export type MaskedBytes = Buffer & { readonly [masked]: true };

/**
 * `T` with every free-text string masked, at any depth. String literal types (a phase, a status)
 * are the code's own words and keep their type, so a discriminated union still narrows.
 */
export type MaskedDeep<T> = T extends string
  ? string extends T
    ? Masked
    : T
  : T extends readonly (infer Item)[]
    ? MaskedDeep<Item>[]
    : T extends object
      ? { [K in keyof T]: MaskedDeep<T[K]> }
      : T;

/** A job's redactor: the one way to turn text into `Masked`. */
export type Redactor = (text: string) => Masked;

const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not masked by value: masking "main" or "1234" would garble text. */
const MIN_SECRET_LENGTH = 8;

/** A base64 fragment shorter than this (12 bytes of a secret) is not worth masking by value. */
const MIN_BASE64_FRAGMENT = 16;

interface Rule {
  pattern: RegExp;
  replace: string | ((match: string, ...groups: string[]) => string);
}

/** `user:password` (or `x-access-token:<token>`) in base64, as in a `Basic` credential. */
function isBasicCredential(base64: string): boolean {
  const decoded = Buffer.from(base64, "base64").toString("utf8");
  // Prose after "Basic" ("Basic authentication") decodes to bytes that are not text.
  return decoded.includes(":") && /^[\x20-\x7e\u00a0-\uffef]+$/.test(decoded) && !decoded.includes("\ufffd");
}

const RULES: readonly Rule[] = [
  // PEM blocks first: their base64 body could otherwise be half-masked by a later rule. An
  // unterminated block (cut output) is masked to the end of the text.
  {
    pattern: /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: "[REDACTED:private-key]",
  },
  { pattern: /gh[pousr]_[A-Za-z0-9]{20,}/g, replace: "[REDACTED:github-token]" },
  { pattern: /github_pat_[A-Za-z0-9_]{20,}/g, replace: "[REDACTED:github-token]" },
  { pattern: /sk-ant-[A-Za-z0-9_-]{10,}/g, replace: "[REDACTED:anthropic-key]" },
  // OpenAI: project, service-account and admin keys by prefix; a classic key is `sk-` and 48 letters and digits.
  { pattern: /sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}/g, replace: "[REDACTED:openai-key]" },
  { pattern: /sk-[A-Za-z0-9]{48,}/g, replace: "[REDACTED:openai-key]" },
  // Slack: bot, user, app-level, configuration and refresh tokens all carry a numeric id after the prefix.
  { pattern: /xox[abposre]-\d+-[A-Za-z0-9-]{8,}/g, replace: "[REDACTED:slack-token]" },
  { pattern: /xapp-\d+-[A-Za-z0-9-]{8,}/g, replace: "[REDACTED:slack-token]" },
  { pattern: /AIza[0-9A-Za-z_-]{35}/g, replace: "[REDACTED:google-api-key]" },
  // GitLab: personal, deploy, runner, CI job, trigger, feed, incoming mail, agent, SCIM, OAuth, feature flag, workspace.
  {
    pattern: /gl(?:pat|dt|rt|rtr|cbt|ptt|ft|imt|agent|soat|oas|ffct|wt)-[0-9A-Za-z_.-]{20,}/g,
    replace: "[REDACTED:gitlab-token]",
  },
  { pattern: /npm_[A-Za-z0-9]{36,}/g, replace: "[REDACTED:npm-token]" },
  { pattern: /(?:AKIA|ASIA)[0-9A-Z]{16}/g, replace: "[REDACTED:aws-access-key]" },
  {
    // The secret key has no recognisable shape of its own; its assignment does.
    pattern: /(aws_secret_access_key|aws_secret_key|secret_access_key|secretAccessKey)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40,}/gi,
    replace: (_match, name, separator) => `${name}${separator}[REDACTED:aws-secret-key]`,
  },
  {
    // Header, payload, signature. When the header's run does not lead to the rest, no later `eyJ` in
    // the same run can (same run, same `.` after it): the second branch takes the run whole, so the
    // search goes on after it instead of reading the run again from each `eyJ` in it (quadratic).
    pattern: /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}|eyJ[A-Za-z0-9_-]*/g,
    replace: (match) => (match.includes(".") ? "[REDACTED:jwt]" : match),
  },
  {
    pattern: /(authorization\s*:\s*(?:bearer|token|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
    replace: (_match, prefix) => `${prefix}${REDACTED}`,
  },
  {
    // Only what decodes to `user:password`, so "Basic configuration" in prose stays.
    pattern: /(basic\s+)([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/gi,
    replace: (match, prefix, credential) => (isBasicCredential(credential) ? `${prefix}[REDACTED:basic-auth]` : match),
  },
  // `x-access-token:` in base64 is this fixed prefix (15 bytes, a whole number of 3-byte groups),
  // wherever the header that carries it was written.
  { pattern: /eC1hY2Nlc3MtdG9rZW46[A-Za-z0-9+/]*={0,2}/g, replace: "[REDACTED:basic-auth]" },
  { pattern: /(x-access-token:)(?!\[REDACTED)[^\s@/"'`]{8,}/g, replace: (_match, prefix) => `${prefix}${REDACTED}` },
  // The password of a URL's user info: https://user:password@host, redis://:password@host. Anchored
  // on "://" and bounded, so a long run of letters (50 MB of command output) costs one pass.
  {
    pattern: /(:\/\/[^\s:/@]{0,256}:)([^\s/@]{1,256})@/g,
    replace: (match, prefix, password) => (password.startsWith("[REDACTED") ? match : `${prefix}${REDACTED}@`),
  },
];

/**
 * A literal every rule above needs somewhere in the text (case-insensitively): text without any of
 * them (most tool output) skips the rules, one scan instead of twenty. Keep it in step with RULES;
 * the format vectors in test/unit/util/redact.test.ts fail if a rule's literal is missing here.
 */
const MAY_HOLD_TOKEN =
  /-----BEGIN|gh[pousr]_|github_pat_|sk-|xox|xapp-|AIza|gl[a-z]{2,5}-|npm_|AKIA|ASIA|secret|eyJ|authorization|basic|eC1hY2Nlc3MtdG9rZW46|x-access-token:|:\/\//i;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The secret as it appears inside base64 (a `Basic` header, a config file), at each of the three
 * byte alignments it can start at: the whole 3-byte groups that hold only the secret's bytes.
 */
function base64Fragments(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const fragments: string[] = [];
  for (let skip = 0; skip < 3; skip += 1) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    const fragment = whole > 0 ? bytes.subarray(skip, skip + whole).toString("base64") : "";
    if (fragment.length >= MIN_BASE64_FRAGMENT) fragments.push(fragment);
  }
  return fragments;
}

/** Characters whose encodings start with the character itself (`%` and `%25`, `\\` and `\\\\`): each doubles the ways a text can be tried. */
const AMBIGUOUS = /[%\\]/g;
/** A secret with more of those is matched in its exact encodings only, so no text can make its expression try many ways. */
const MAX_AMBIGUOUS = 6;

/**
 * A secret as a regular expression source matching it as written and as the common encoders write
 * it, character by character: percent-encoded in either hex case (whichever characters an encoder
 * leaves alone: encodeURIComponent, Python's quote, .NET's lowercase hex), `+` for a space (forms),
 * and JSON-escaped (`\\/`, `\\uXXXX` in either case, as PHP and Go write them). Letters and digits
 * stand for themselves: no encoder writes them otherwise.
 */
function encodedForms(secret: string): string {
  if ((secret.match(AMBIGUOUS)?.length ?? 0) > MAX_AMBIGUOUS) {
    const exact = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
    return [...exact].map(escapeRegExp).join("|");
  }
  return [...secret].map(encodedChar).join("");
}

function encodedChar(char: string): string {
  if (/^[A-Za-z0-9]$/.test(char)) return char;
  const ways = new Set<string>([escapeRegExp(char)]);
  ways.add([...Buffer.from(char, "utf8")].map((byte) => `%${eitherCase(byte.toString(16).toUpperCase().padStart(2, "0"))}`).join(""));
  if (char === " ") ways.add("\\+");
  const json = JSON.stringify(char).slice(1, -1);
  if (json !== char) ways.add(escapeRegExp(json));
  if (char === "/") ways.add("\\\\/");
  // JSON may escape any character as `\uXXXX`, one outside the BMP as its two surrogates (PHP, Python).
  ways.add(Array.from({ length: char.length }, (_, i) => `\\\\u${eitherCase(char.charCodeAt(i).toString(16).toUpperCase().padStart(4, "0"))}`).join(""));
  return `(?:${[...ways].join("|")})`;
}

/** Hex digits as a pattern matching them in either case (`2F` → `2[Ff]`). */
function eitherCase(hex: string): string {
  return hex.replace(/[A-F]/g, (digit) => `[${digit}${digit.toLowerCase()}]`);
}

/**
 * Builds a redactor for one job. `secrets` are the values the job knows (tokens, keys); each one of
 * 8 characters or more is masked wherever it appears, also URL-encoded, JSON-escaped and inside base64.
 */
export function createRedactor(secrets: readonly string[] = []): Redactor {
  // Each form as a regular expression source, with the length of the text it stands for.
  const forms = new Map<string, number>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    forms.set(encodedForms(secret), secret.length);
    for (const fragment of base64Fragments(secret)) forms.set(escapeRegExp(fragment), fragment.length);
  }
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...forms].sort((a, b) => b[1] - a[1]).map(([source]) => source);
  const byValue = ordered.length > 0 ? new RegExp(ordered.join("|"), "g") : undefined;

  return (text: string): Masked => {
    let result = byValue ? maskSpans(text, byValue) : text;
    if (!MAY_HOLD_TOKEN.test(result)) return result as Masked;
    for (const rule of RULES) {
      const { pattern, replace } = rule;
      result = typeof replace === "string" ? result.replace(pattern, replace) : result.replace(pattern, replace);
    }
    return result as Masked;
  };
}

/**
 * Every match of `pattern` (global), overlapping ones included, replaced by one REDACTED per run of
 * matched text: a single replace resumes after each match, so of two secrets that overlap in the text
 * (`abcdefgh12` and `12345678xyz` in `abcdefgh12345678xyz`) the second showed 9 of its 11 characters.
 */
function maskSpans(text: string, pattern: RegExp): string {
  let out = "";
  let copied = 0;
  let end = -1;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const start = match.index;
    if (start > end) {
      if (end !== -1) {
        out += REDACTED;
        copied = end;
      }
      out += text.slice(copied, start);
      copied = start;
    }
    end = Math.max(end, start + match[0].length);
    pattern.lastIndex = start + 1;
  }
  if (end === -1) return text;
  return `${out}${REDACTED}${text.slice(end)}`;
}

/** Masks the known token formats only; for text where the job's secrets are not at hand. */
export const redactKnownTokens: Redactor = createRedactor([]);

/**
 * The one deep redaction: a copy of a JSON-like value (plain objects and arrays at any depth) with every
 * string, keys included, passed through `redact`. Used for transcript lines, log lines and the
 * tracking comment's state.
 */
export function redactDeep<T>(value: T, redact: Redactor): MaskedDeep<T> {
  return deep(value, redact) as MaskedDeep<T>;
}

/**
 * Values nested deeper are replaced by a marker: a model's tool input is parsed without a depth limit
 * by some paths, and recursing 6,000 levels overflowed the stack, so the transcript line of a call that
 * ran was lost.
 */
const MAX_DEEP_NESTING = 64;
const TOO_DEEP = `[nested more than ${MAX_DEEP_NESTING} levels deep]`;

function deep(value: unknown, redact: Redactor, depth = 0): unknown {
  if (typeof value === "string") return redact(value);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEEP_NESTING) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((item) => deep(item, redact, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[redact(key)] = deep(item, redact, depth + 1);
  return out;
}

/**
 * A value as one line of JSON, every string masked first. Masking the serialized text instead could
 * swallow the escapes around a secret (a cut-off PEM block is masked to its end) and break the line.
 */
export function maskedJson(value: unknown, redact: Redactor): Masked {
  return JSON.stringify(deep(value, redact)) as Masked;
}

/**
 * Masked text cut to about `maxChars` (truncateMiddle). Cutting comes after masking, never before: a
 * cut can split a secret so that it no longer matches by value, while cutting masked text cannot
 * bring one back. `hint` is the code's own words.
 */
export function cutMasked(text: Masked, maxChars: number, hint: string): Masked {
  return truncateMiddle(text, maxChars, hint) as Masked;
}

/** Masked text without its surrounding whitespace: trimming cannot bring a secret back either. */
export function trimMasked(text: Masked): Masked {
  return text.trim() as Masked;
}

/**
 * An artifact's content, masked: a text file (valid UTF-8, no NUL) is masked like any text; a binary
 * one cannot be masked without breaking it, so one holding a secret (by value or by a token's shape)
 * gives null, and the caller refuses it. A secret is looked for in every encoding the bytes may hold
 * it in: as bytes (latin1), as UTF-8 among other bytes (a NUL or a stray byte beside it), and as
 * UTF-16 either way round at either alignment (a UTF-16 log, as Windows tools write them).
 */
export function maskBytes(content: Buffer, redact: Redactor): MaskedBytes | null {
  const text = content.toString("utf8");
  if (!content.includes(0) && Buffer.byteLength(text) === content.length && !text.includes("\ufffd")) {
    return Buffer.from(redact(text), "utf8") as MaskedBytes;
  }
  return binaryViews(content).every((view) => redact(view) === view) ? (content as MaskedBytes) : null;
}

/** The texts binary `content` may be read as, for finding a secret in it. */
function binaryViews(content: Buffer): string[] {
  const views = [content.toString("latin1"), content.toString("utf8")];
  for (const offset of [0, 1]) {
    const part = content.subarray(offset, offset + ((content.length - offset) & ~1));
    views.push(part.toString("utf16le"), Buffer.from(part).swap16().toString("utf16le"));
  }
  return views;
}
