/**
 * Masks credentials in text before it reaches the model, a log, or GitHub. Known token formats are
 * masked by shape; the job's own secrets are masked by value, whatever their shape.
 */
export type Redactor = (text: string) => string;

const REDACTED = "[REDACTED]";

/** Secrets shorter than this are not masked by value: masking "main" or "1234" would garble text. */
const MIN_SECRET_LENGTH = 8;

interface Rule {
  pattern: RegExp;
  replace: string | ((match: string, ...groups: string[]) => string);
}

const RULES: readonly Rule[] = [
  // PEM blocks first: their base64 body could otherwise be half-masked by a later rule. An
  // unterminated block (cut output) is masked to the end of the text.
  {
    pattern: /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g,
    replace: "[REDACTED:private-key]",
  },
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{20,}/g, replace: "[REDACTED:github-token]" },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/g, replace: "[REDACTED:github-token]" },
  { pattern: /\bsk-ant-[A-Za-z0-9_-]{10,}/g, replace: "[REDACTED:anthropic-key]" },
  { pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, replace: "[REDACTED:npm-token]" },
  { pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: "[REDACTED:aws-access-key]" },
  {
    // The secret key has no recognisable shape of its own; its assignment does.
    pattern: /\b(aws_secret_access_key|aws_secret_key|secret_access_key|secretAccessKey)(["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}\b/gi,
    replace: (_match, name, separator) => `${name}${separator}[REDACTED:aws-secret-key]`,
  },
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, replace: "[REDACTED:jwt]" },
  {
    pattern: /\b(authorization\s*:\s*(?:bearer|token|basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
    replace: (_match, prefix) => `${prefix}${REDACTED}`,
  },
];

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Builds a redactor for one job. `secrets` are the values the job knows (tokens, keys); each one of
 * 8 characters or more is masked wherever it appears, also in its URL-encoded form.
 */
export function createRedactor(secrets: readonly string[] = []): Redactor {
  const values = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    values.add(secret);
    values.add(encodeURIComponent(secret));
  }
  // Longest first, so a secret that contains another is masked whole.
  const ordered = [...values].sort((a, b) => b.length - a.length);
  const byValue = ordered.length > 0 ? new RegExp(ordered.map(escapeRegExp).join("|"), "g") : undefined;

  return (text: string): string => {
    let result = byValue ? text.replace(byValue, REDACTED) : text;
    for (const rule of RULES) {
      const { pattern, replace } = rule;
      result = typeof replace === "string" ? result.replace(pattern, replace) : result.replace(pattern, replace);
    }
    return result;
  };
}

/** Masks the known token formats only; for text where the job's secrets are not at hand. */
export const redactKnownTokens: Redactor = createRedactor([]);
