import { MAX_PUBLISHED_FILE_BYTES } from "../../config/index.js";
import { isTackleError } from "../../errors/index.js";
import { type LineBudget, lineDelta, MAX_COMPARED_BYTES, MAX_COMPARED_LINES } from "../../util/count-lines.js";
import type { ToolContext } from "../tools/tool.js";

/**
 * Keeps the branch's diff size (lines added plus removed against the base) between writes without
 * running git for each one. Git measures it once (`ctx.git.diffStat`, three sandboxed commands);
 * after that each write the engine sees is counted on the host, from the file's content at the
 * measurement and its content after the write. Anything the engine cannot count (a shell command,
 * a branch switch, a commit, a writer without a preview) calls `forget`, and the next write
 * measures again. The figure is an estimate that steers the agent early; the host's check before
 * publishing (checkPublishedChange) stays the boundary.
 *
 * Files are read only through the workspace's guarded reader (`ctx.fs.read`): a remembered file that
 * is no longer a regular file the reader takes (a FIFO or a symlink swapped in by a background
 * command, a file grown past the cap) is not counted on the host; git measures again instead.
 */
export interface DiffSizeTracker {
  /**
   * The branch's diff if `absolutePath`, now holding `current`, held `next`: exact from git, or
   * measured plus what writes since changed.
   */
  projected(absolutePath: string, current: string, next: string, ctx: ToolContext): Promise<Projection>;
  /** Measures with git again, then projects as above: for a verdict that refuses or asks. */
  measure(absolutePath: string, current: string, next: string, ctx: ToolContext): Promise<Projection>;
  /** Something changed the worktree in a way the tracker did not see. */
  forget(): void;
}

export interface Projection {
  lines: number;
  now: number;
  exact: boolean;
}

interface Touched {
  /** The file's content when git last measured ("" when absent). */
  atMeasure: string;
  /** Its content when last looked at, and lineDelta(atMeasure, seen). */
  seen: string;
  delta: number;
}

/**
 * What one estimate compares on the host (all touched files together): a quarter of a publish
 * check's, since it runs before every write. Past it, git measures, or the write is left to the publish check.
 */
function estimateBudget(): LineBudget {
  return { bytes: MAX_COMPARED_BYTES / 4, lines: MAX_COMPARED_LINES / 4 };
}

/** A remembered file the host cannot count any more: git measures instead. */
const UNCOUNTABLE = Symbol("uncountable");

export function createDiffSizeTracker(): DiffSizeTracker {
  let measured: number | undefined;
  const touched = new Map<string, Touched>();

  async function measure(ctx: ToolContext): Promise<void> {
    touched.clear();
    measured = undefined;
    measured = (await ctx.git.diffStat(ctx.baseBranch)).lines;
  }

  /** Lines the writes since the measurement changed in files other than `target`, or UNCOUNTABLE. */
  async function drift(target: string, ctx: ToolContext, budget: LineBudget): Promise<number | typeof UNCOUNTABLE> {
    let lines = 0;
    for (const [file, entry] of touched) {
      if (file === target) continue;
      const content = await readText(file, ctx);
      if (content === UNCOUNTABLE) return UNCOUNTABLE;
      const delta = refresh(entry, content, budget);
      if (delta === UNCOUNTABLE) return UNCOUNTABLE;
      lines += delta;
    }
    return lines;
  }

  async function project(absolutePath: string, current: string, next: string, exact: boolean, ctx: ToolContext): Promise<Projection> {
    // One budget for everything this estimate compares on the host, however many files were touched.
    const budget = estimateBudget();
    let others = await drift(absolutePath, ctx, budget);
    if (others === UNCOUNTABLE) {
      await measure(ctx);
      others = 0;
      exact = true;
    }
    let entry = touched.get(absolutePath);
    if (entry === undefined) {
      // Every write goes through the engine (others call forget), so the file is as git measured it.
      entry = { atMeasure: current, seen: current, delta: 0 };
      touched.set(absolutePath, entry);
    }
    const mine = refresh(entry, current, budget);
    if (mine === UNCOUNTABLE) {
      await measure(ctx);
      return project(absolutePath, current, next, true, ctx);
    }
    const now = (measured ?? 0) + others + mine;
    const written = lineDelta(entry.atMeasure, next, budget);
    // Too large to compare on the host: an upper bound, which a verdict that refuses or asks measures again with git.
    return { lines: now - mine + written.lines, now, exact: exact && written.exact };
  }

  return {
    async projected(absolutePath, current, next, ctx) {
      const exact = measured === undefined;
      if (exact) await measure(ctx);
      return project(absolutePath, current, next, exact, ctx);
    },
    async measure(absolutePath, current, next, ctx) {
      await measure(ctx);
      return project(absolutePath, current, next, true, ctx);
    },
    forget() {
      measured = undefined;
      touched.clear();
    },
  };
}

/** Updates the entry's delta when the file changed since last seen; UNCOUNTABLE when it is too large to compare on the host. */
function refresh(entry: Touched, content: string, budget: LineBudget): number | typeof UNCOUNTABLE {
  if (content !== entry.seen) {
    const delta = lineDelta(entry.atMeasure, content, budget);
    if (!delta.exact) return UNCOUNTABLE;
    entry.seen = content;
    entry.delta = delta.lines;
  }
  return entry.delta;
}

/** A remembered file's text through the guarded reader ("" when gone), or UNCOUNTABLE. */
async function readText(file: string, ctx: ToolContext): Promise<string | typeof UNCOUNTABLE> {
  try {
    const read = await ctx.fs.read(file, { maxBytes: MAX_PUBLISHED_FILE_BYTES, signal: ctx.signal });
    if (read.kind === "missing") return "";
    return read.kind === "file" ? read.bytes.toString("utf8") : UNCOUNTABLE;
  } catch (error) {
    // The guard refused it (a FIFO, a device, a symlink out): not the host's to read.
    if (isTackleError(error, "path_outside_worktree")) return UNCOUNTABLE;
    throw error;
  }
}
