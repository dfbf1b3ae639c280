/** A value as a problem message shows it: short, and saying what kind of thing it is. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (Array.isArray(value)) return `a list of ${value.length}`;
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return JSON.stringify(shown);
  }
  return String(value);
}

/**
 * The known key an unknown one was most likely meant to be: same letters ignoring case, `_` and
 * `-` (`maxTurns`, `max-turns`), or a small edit distance (`protected_pathz`).
 */
export function closestKey(unknown: string, known: readonly string[]): string | undefined {
  const squash = (key: string) => key.toLowerCase().replace(/[-_\s]/g, "");
  const squashed = squash(unknown);
  const exact = known.find((key) => squash(key) === squashed);
  if (exact !== undefined) return exact;
  const lower = unknown.toLowerCase();
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const limit = Math.max(2, Math.floor(key.length / 4));
    // The distance is at least the difference in length: a long key (up to 1,024 characters each, a
    // thousand of them in one file) is not compared letter by letter with every known one.
    if (Math.abs(lower.length - key.length) > limit) continue;
    const distance = editDistance(lower, key);
    if (distance <= limit && (best === undefined || distance < best.distance)) {
      best = { key, distance };
    }
  }
  return best?.key;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
