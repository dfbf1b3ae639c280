// Reads Prometheus's text exposition format back into samples, for assertions on what /metrics served.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([A-Za-z_:][A-Za-z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /\s*([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"\s*,?/gy;

/** Every sample line of `text`; throws on a line that is neither a sample, a comment nor empty. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "" || line.startsWith("#")) continue;
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${JSON.stringify(line)}`);
    const labels: Record<string, string> = {};
    const body = match[2] ?? "";
    LABEL.lastIndex = 0;
    let read = 0;
    for (let label = LABEL.exec(body); label !== null; label = LABEL.exec(body)) {
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
      read = LABEL.lastIndex;
    }
    if (read !== body.length) throw new Error(`unreadable labels: ${JSON.stringify(line)}`);
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/**
 * The value of the one sample named `name` whose labels include `labels`; undefined when there is
 * none, an error when several match (the test should name more labels).
 */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([key, value]) => s.labels[key] === value));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value;
}

/** The samples named `name`, as `{label=value,…}` keys (sorted) to values: for exact comparisons. */
export function samplesOf(samples: Sample[], name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of samples.filter((sample) => sample.name === name)) {
    const key = Object.entries(s.labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${v}`)
      .join(",");
    out[key] = s.value;
  }
  return out;
}

/** The help line's metric families, to check that each appears once. */
export function familyNames(text: string): string[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("# TYPE "))
    .map((line) => line.split(" ")[2]!);
}
