import type { WebPage } from "../agent/ports.js";

/** Pages fetched recently, shareable by the fetchers of one process (keys include the allow-lists). */
export interface WebFetchCache {
  get(key: string, now: number): WebPage | undefined;
  set(key: string, page: WebPage, now: number): void;
}

export interface WebFetchCacheOptions {
  /** @defaultValue 15 minutes */
  ttlMs?: number;
  /** The oldest entry goes first past this many (a page is at most the fetcher's text cap). @defaultValue 200 */
  maxEntries?: number;
}

const WEB_FETCH_CACHE_TTL_MS = 15 * 60 * 1000;

export function createWebFetchCache(options: WebFetchCacheOptions = {}): WebFetchCache {
  const ttlMs = options.ttlMs ?? WEB_FETCH_CACHE_TTL_MS;
  const maxEntries = options.maxEntries ?? 200;
  // A Map iterates in insertion order: the first key is the oldest write.
  const entries = new Map<string, { page: WebPage; storedAt: number }>();
  return {
    get(key, now) {
      const entry = entries.get(key);
      if (entry === undefined) return undefined;
      if (now - entry.storedAt < ttlMs) return entry.page;
      entries.delete(key);
      return undefined;
    },
    set(key, page, now) {
      entries.delete(key);
      entries.set(key, { page, storedAt: now });
      for (const oldest of entries.keys()) {
        if (entries.size <= maxEntries) break;
        entries.delete(oldest);
      }
    },
  };
}
