/** An operator's price for the models whose id starts with `prefix`, in USD per million tokens. */
export interface ConfiguredPrice {
  prefix: string;
  input: number;
  output: number;
  /** Tokens read from the server's prompt cache. @defaultValue the pricing table's rule (0.1 × input) */
  cacheRead?: number;
}

export type ModelPricesResult = { ok: true; prices: ConfiguredPrice[] } | { ok: false; problems: string[] };

const SHAPE = "`model=input/output` or `model=input/output/cache_read` (USD per million tokens)";

/**
 * Parses TACKLE_MODEL_PRICES: comma-separated `model=input/output[/cache_read]`. The model part is a
 * prefix of the model id, split at the last `=`, so names with `/` or `:` (`Qwen/Qwen3-32B`,
 * `llama3.1:8b`) need no quoting. Every bad entry is its own problem.
 */
export function parseModelPrices(value: string | undefined): ModelPricesResult {
  if (value === undefined) return { ok: true, prices: [] };
  const prices: ConfiguredPrice[] = [];
  const problems: string[] = [];
  for (const raw of value.split(",")) {
    const entry = raw.trim();
    if (entry === "") continue;
    const parsed = parseEntry(entry);
    if (typeof parsed === "string") problems.push(`\`${entry}\` is not a model price: ${parsed}`);
    else prices.push(parsed);
  }
  return problems.length === 0 ? { ok: true, prices } : { ok: false, problems };
}

function parseEntry(entry: string): ConfiguredPrice | string {
  const at = entry.lastIndexOf("=");
  if (at <= 0) return `expected ${SHAPE}`;
  const prefix = entry.slice(0, at).trim();
  if (/\s/.test(prefix)) return "a model name has no spaces";
  const numbers = entry
    .slice(at + 1)
    .split("/")
    .map((part) => part.trim());
  if (numbers.length < 2 || numbers.length > 3) return `expected ${SHAPE}`;
  const values = numbers.map((part) => (/^\d+(?:\.\d+)?$/.test(part) ? Number(part) : Number.NaN));
  if (values.some((n) => !Number.isFinite(n))) return "prices are non-negative numbers such as 0.5";
  const [input = 0, output = 0, cacheRead] = values;
  return { prefix, input, output, ...(cacheRead === undefined ? {} : { cacheRead }) };
}
