import type { Logger } from "../logging/logger.js";
import type { CheckoutPool } from "./checkout-pool.js";
import { acquireLock } from "./file-lock.js";
import { diskUsage, removeTree } from "./fs-util.js";
import { mirrorLock, type MirrorStore } from "./mirror-store.js";
import { isLocalPidAlive, isOwnerAlive } from "./owner-record.js";

export interface CacheCleanupOptions {
  mirrors: MirrorStore;
  pool: CheckoutPool;
  staleAfterMs: number;
  /** Disk budget for mirrors. @defaultValue unlimited */
  maxBytes?: number;
  logger?: Logger;
}

export interface RepoCacheStats {
  mirrors: Array<{ repoKey: string; path: string; bytes: number; lastUsedAt: number | null }>;
  checkouts: Array<{ jobId: string; path: string; pid: number | null; alive: boolean; createdAt: number | null }>;
  mirrorBytes: number;
  maxBytes: number | null;
}

/** What keeps TACKLE_HOME within bounds: the mirrors' disk budget, stale checkouts, and what it holds. */
export interface CacheCleanup {
  /** Evicts least recently used mirrors past the budget; one pass at a time in this process. */
  enforceBudget(): Promise<void>;
  /** Removes stale checkouts, stale parked ones and half-made mirrors, then enforces the budget. */
  pruneStale(): Promise<void>;
  stats(): Promise<RepoCacheStats>;
}

export function createCacheCleanup(options: CacheCleanupOptions): CacheCleanup {
  const { mirrors, pool, staleAfterMs, maxBytes, logger } = options;
  let budgetRun: Promise<void> = Promise.resolve();

  function enforceBudget(): Promise<void> {
    // A caller awaits any pass already running, and then its own.
    budgetRun = budgetRun.catch(() => undefined).then(evictOverBudget);
    return budgetRun;
  }

  async function mirrorsInUse(): Promise<Set<string>> {
    const used = new Set<string>();
    for (const { meta } of await pool.list()) {
      if (meta && (await isOwnerAlive(meta, staleAfterMs))) used.add(meta.mirror);
    }
    return used;
  }

  /** Skips mirrors a live checkout borrows from, and locked ones (a job is fetching or checking out). */
  async function evictOverBudget(): Promise<void> {
    if (maxBytes === undefined) return;
    const sized = await Promise.all(
      (await mirrors.list()).map(async (mirror) => ({ mirror, bytes: await diskUsage(mirror), lastUsedAt: (await mirrors.lastUsed(mirror)) ?? 0 })),
    );
    let total = sized.reduce((sum, entry) => sum + entry.bytes, 0);
    if (total <= maxBytes) return;
    const inUse = await mirrorsInUse();
    for (const entry of sized.sort((a, b) => a.lastUsedAt - b.lastUsedAt)) {
      if (total <= maxBytes) break;
      if (inUse.has(entry.mirror)) continue;
      const release = await acquireLock(mirrorLock(entry.mirror), { wait: false });
      if (!release) continue;
      try {
        logger?.info({ mirror: entry.mirror, bytes: entry.bytes }, "evicting mirror (disk budget)");
        await pool.dropParked(entry.mirror);
        await removeTree(entry.mirror);
        total -= entry.bytes;
      } finally {
        await release();
      }
    }
  }

  async function pruneStale(): Promise<void> {
    await pool.pruneStale(await mirrors.list());
    await mirrors.removeHalfMade((pid) => isLocalPidAlive(pid, staleAfterMs));
    await enforceBudget();
  }

  async function stats(): Promise<RepoCacheStats> {
    const found: RepoCacheStats["mirrors"] = [];
    for (const mirror of await mirrors.list()) {
      found.push({ repoKey: mirrors.keyOf(mirror), path: mirror, bytes: await diskUsage(mirror), lastUsedAt: await mirrors.lastUsed(mirror) });
    }
    const checkouts: RepoCacheStats["checkouts"] = [];
    for (const { name, paths, meta } of await pool.list()) {
      checkouts.push({
        jobId: meta?.jobId ?? name,
        path: paths.root,
        pid: meta?.pid ?? null,
        alive: meta ? await isOwnerAlive(meta, staleAfterMs) : false,
        createdAt: meta?.createdAt ?? null,
      });
    }
    return { mirrors: found, checkouts, mirrorBytes: found.reduce((sum, m) => sum + m.bytes, 0), maxBytes: maxBytes ?? null };
  }

  return { enforceBudget, pruneStale, stats };
}
