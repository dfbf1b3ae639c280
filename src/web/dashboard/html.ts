import { escapeHtml } from "../../util/escape-html.js";

/** Markup that is already escaped: the only thing `html` inserts as it is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/**
 * The dashboard's one way to build markup: every interpolated value is escaped unless it is itself
 * `SafeHtml` (built by this tag); arrays are joined; null, undefined and false render nothing.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** A whole page: the stylesheet and, where live, the one script, both files (the CSP allows no inline code). */
export function page(title: string, body: SafeHtml, options: { script?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${title} · Tackle</title>
<link rel="stylesheet" href="/dashboard/static/dashboard.css">
${options.script ? html`<script src="/dashboard/static/job.js" defer></script>` : ""}
</head>
<body>
${body}
</body>
</html>
`.value;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return "—";
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export function formatTokens(n: number | undefined): string {
  if (n === undefined) return "—";
  return n >= 10_000 ? `${(n / 1000).toFixed(1)}k` : String(n);
}

export function formatCost(usd: number | undefined): string {
  return usd === undefined ? "—" : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
}
