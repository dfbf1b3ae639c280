/**
 * Token accounting with Anthropic's prompt-caching rules, faithful enough for benchmarks of
 * prefix reuse. Simplifications, all deliberate:
 * - a token is ceil(chars / 4) of each block's JSON (cache_control removed), not a real tokenizer;
 * - the cache key of a prefix is the model plus every block up to it (role included for message
 *   blocks); tool_choice, thinking and images are not treated specially;
 * - reads: for each breakpoint the API looks back up to 20 blocks for the longest prefix written by
 *   an earlier request (only breakpoint positions are ever written), and uses the longest hit;
 * - writes: every breakpoint whose prefix reaches the minimum cacheable length is written (or
 *   refreshed), with its TTL (5 min default, 1 h with `ttl: "1h"`); a hit refreshes its entry.
 */
import { createHash } from "node:crypto";

export interface CacheState {
  /** Prefix key -> entry; a Map so tests can inspect or clear it. */
  entries: Map<string, { expiresAt: number; ttlMs: number }>;
  now: () => number;
}

export function createCacheState(now: () => number = Date.now): CacheState {
  return { entries: new Map(), now };
}

export interface CacheRules {
  /** Prefixes shorter than this are never cached (Sonnet/Opus: 1024; Haiku: 2048). @defaultValue 1024 */
  minCacheableTokens?: number;
  /** @defaultValue 20 */
  lookbackBlocks?: number;
}

export interface ComputedUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

interface CacheControl {
  type: string;
  ttl?: string;
}

interface PromptBlock {
  tokens: number;
  key: string;
  cacheControl?: CacheControl;
}

export const MAX_CACHE_BREAKPOINTS = 4;
const FIVE_MINUTES = 5 * 60_000;
const ONE_HOUR = 60 * 60_000;

/** ceil(chars / 4) of the JSON serialization: the fake's stand-in for a tokenizer. */
export function countTokens(value: unknown): number {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return Math.ceil(text.length / 4);
}

function withoutCacheControl(block: unknown): { block: unknown; cacheControl?: CacheControl } {
  if (block === null || typeof block !== "object" || !("cache_control" in block)) return { block };
  const { cache_control: cacheControl, ...rest } = block as { cache_control?: CacheControl | null };
  return cacheControl ? { block: rest, cacheControl } : { block: rest };
}

/** The request flattened in cache order: tools, then system, then messages' content blocks. */
function promptParts(request: Record<string, unknown>): Array<{ part: unknown; cacheControl?: CacheControl }> {
  const parts: Array<{ part: unknown; cacheControl?: CacheControl }> = [];
  for (const tool of (request.tools as unknown[] | undefined) ?? []) {
    const { block, cacheControl } = withoutCacheControl(tool);
    parts.push({ part: { tool: block }, ...(cacheControl ? { cacheControl } : {}) });
  }
  const system = request.system;
  const systemBlocks = typeof system === "string" ? [{ type: "text", text: system }] : ((system as unknown[] | undefined) ?? []);
  for (const raw of systemBlocks) {
    const { block, cacheControl } = withoutCacheControl(raw);
    parts.push({ part: { system: block }, ...(cacheControl ? { cacheControl } : {}) });
  }
  for (const message of (request.messages as Array<{ role?: string; content?: unknown }> | undefined) ?? []) {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : ((message.content as unknown[] | undefined) ?? []);
    for (const raw of content) {
      const { block, cacheControl } = withoutCacheControl(raw);
      parts.push({ part: { role: message.role, block }, ...(cacheControl ? { cacheControl } : {}) });
    }
  }
  return parts;
}

function promptBlocks(request: Record<string, unknown>): PromptBlock[] {
  let key = createHash("sha256")
    .update(String(request.model ?? ""))
    .digest("hex");
  return promptParts(request).map(({ part, cacheControl }) => {
    const serialized = JSON.stringify(part);
    key = createHash("sha256").update(key).update("\n").update(serialized).digest("hex");
    return { tokens: countTokens(serialized), key, ...(cacheControl ? { cacheControl } : {}) };
  });
}

export function countBreakpoints(request: Record<string, unknown>): number {
  return promptParts(request).filter((p) => p.cacheControl).length;
}

/** Total input tokens of a request as /v1/messages/count_tokens reports them (no caching). */
export function countInputTokens(request: Record<string, unknown>): number {
  return promptBlocks(request).reduce((sum, block) => sum + block.tokens, 0);
}

export function computeUsage(request: Record<string, unknown>, cache: CacheState, rules: CacheRules = {}): ComputedUsage {
  const minTokens = rules.minCacheableTokens ?? 1024;
  const lookback = rules.lookbackBlocks ?? 20;
  const blocks = promptBlocks(request);
  const now = cache.now();
  for (const [key, entry] of cache.entries) if (entry.expiresAt <= now) cache.entries.delete(key);

  const prefixTokens: number[] = [];
  let running = 0;
  for (const block of blocks) {
    running += block.tokens;
    prefixTokens.push(running);
  }
  const total = running;
  const breakpoints = blocks
    .map((block, index) => ({ index, ttlMs: block.cacheControl?.ttl === "1h" ? ONE_HOUR : FIVE_MINUTES, marked: Boolean(block.cacheControl) }))
    .filter((bp) => bp.marked && (prefixTokens[bp.index] ?? 0) >= minTokens);

  let hit = -1;
  for (const bp of breakpoints) {
    for (let p = bp.index; p >= Math.max(0, bp.index - lookback + 1); p--) {
      if (cache.entries.has(blocks[p]?.key ?? "")) {
        hit = Math.max(hit, p);
        break;
      }
    }
  }
  const hitEntry = hit >= 0 ? cache.entries.get(blocks[hit]?.key ?? "") : undefined;
  if (hitEntry) hitEntry.expiresAt = now + hitEntry.ttlMs;

  const read = hit >= 0 ? (prefixTokens[hit] ?? 0) : 0;
  const creation = { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 };
  let covered = read;
  for (const bp of breakpoints) {
    const end = prefixTokens[bp.index] ?? 0;
    if (bp.index > hit && end > covered) {
      if (bp.ttlMs === ONE_HOUR) creation.ephemeral_1h_input_tokens += end - covered;
      else creation.ephemeral_5m_input_tokens += end - covered;
      covered = end;
    }
    const key = blocks[bp.index]?.key ?? "";
    const existing = cache.entries.get(key);
    cache.entries.set(key, { expiresAt: now + Math.max(bp.ttlMs, existing?.ttlMs ?? 0), ttlMs: Math.max(bp.ttlMs, existing?.ttlMs ?? 0) });
  }
  const written = creation.ephemeral_5m_input_tokens + creation.ephemeral_1h_input_tokens;
  return {
    input_tokens: total - read - written,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: read,
    cache_creation: creation,
  };
}
