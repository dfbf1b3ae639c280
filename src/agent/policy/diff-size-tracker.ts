import { readFile } from "node:fs/promises";
import type { ToolContext } from "../tools/tool.js";

/**
 * Keeps the branch's diff size (lines added plus removed against the base) between writes without
 * running git for each one. Git measures it once (`ctx.git.diffStat`, three sandboxed commands);
 * after that each write the engine sees is counted on the host, from the file's content at the
 * measurement and its content after the write. Anything the engine cannot count (a shell command,
 * a branch switch, a commit, a writer without a preview) calls `forget`, and the next write
 * measures again. The figure is an estimate that steers the agent early; the host's check before
 * publishing (checkPublishedChange) stays the boundary.
 */
export interface DiffSizeTracker {
  /** The branch's diff if `absolutePath` held `next`: exact from git, or measured plus what writes since changed. */
  projected(absolutePath: string, next: string, ctx: ToolContext): Promise<{ lines: number; now: number; exact: boolean }>;
  /** Measures with git again, then projects as above: for a verdict that refuses or asks. */
  measure(absolutePath: string, next: string, ctx: ToolContext): Promise<{ lines: number; now: number; exact: boolean }>;
  /** Something changed the worktree in a way the tracker did not see. */
  forget(): void;
}

interface Touched {
  /** The file's content when git last measured ("" when absent). */
  atMeasure: string;
  /** Its content when last looked at, and lineDelta(atMeasure, seen). */
  seen: string;
  delta: number;
}

export function createDiffSizeTracker(): DiffSizeTracker {
  let measured: number | undefined;
  const touched = new Map<string, Touched>();

  async function measure(ctx: ToolContext): Promise<number> {
    touched.clear();
    measured = undefined;
    const lines = (await ctx.git.diffStat(ctx.baseBranch)).lines;
    measured = lines;
    return lines;
  }

  /** Lines the writes since the measurement changed, with the target file's entry (created on first touch). */
  async function drift(target: string): Promise<{ lines: number; entry: Touched }> {
    let lines = 0;
    for (const [file, entry] of touched) {
      if (file === target) continue;
      lines += await refresh(file, entry);
    }
    let entry = touched.get(target);
    if (entry === undefined) {
      // Every write goes through the engine (others call forget), so the file is as git measured it.
      const content = await readText(target);
      entry = { atMeasure: content, seen: content, delta: 0 };
      touched.set(target, entry);
    }
    return { lines, entry };
  }

  async function project(absolutePath: string, next: string, exact: boolean): Promise<{ lines: number; now: number; exact: boolean }> {
    const { lines: others, entry } = await drift(absolutePath);
    const current = await refresh(absolutePath, entry);
    const now = (measured ?? 0) + others + current;
    return { lines: now - current + lineDelta(entry.atMeasure, next), now, exact };
  }

  return {
    async projected(absolutePath, next, ctx) {
      const exact = measured === undefined;
      if (exact) await measure(ctx);
      return project(absolutePath, next, exact);
    },
    async measure(absolutePath, next, ctx) {
      await measure(ctx);
      return project(absolutePath, next, true);
    },
    forget() {
      measured = undefined;
      touched.clear();
    },
  };
}

/** Reads the file again and updates its delta when it changed since last seen. */
async function refresh(file: string, entry: Touched): Promise<number> {
  const content = await readText(file);
  if (content !== entry.seen) {
    entry.seen = content;
    entry.delta = lineDelta(entry.atMeasure, content);
  }
  return entry.delta;
}

async function readText(file: string): Promise<string> {
  return readFile(file, "utf8").catch(() => "");
}

/** Lines in one text and not the other, both ways (a multiset difference): what a diff adds plus removes, about. */
export function lineDelta(before: string, after: string): number {
  if (before === after) return 0;
  const remaining = new Map<string, number>();
  for (const line of splitLines(before)) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  let added = 0;
  for (const line of splitLines(after)) {
    const count = remaining.get(line) ?? 0;
    if (count > 0) remaining.set(line, count - 1);
    else added += 1;
  }
  let removed = 0;
  for (const count of remaining.values()) removed += count;
  return added + removed;
}

function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
