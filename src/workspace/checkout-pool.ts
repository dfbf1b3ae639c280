import { createHash, randomBytes } from "node:crypto";
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { checkoutNameOf, checkoutPaths, claimCheckout, removeCheckout, type CheckoutPaths } from "./checkout-paths.js";
import { clearModeBits, removeTree } from "./fs-util.js";
import type { GitRepoLocation, HostGit } from "./git-host.js";
import { isLocalPidAlive, isOwnerAlive, parseOwnerRecord, type OwnerRecord } from "./owner-record.js";

export interface CheckoutPoolOptions {
  /** `${TACKLE_HOME}/checkouts`: one checkout per running job, each with its {@link CheckoutPaths}. */
  checkoutsDir: string;
  /** `${TACKLE_HOME}/recycled`: finished checkouts parked per mirror, and fresh `.git`s being made for them. */
  recycledDir: string;
  templateDir: string;
  git: HostGit;
  /** Checkouts and parked checkouts older than this are stale even if their owner seems alive. */
  staleAfterMs: number;
  /** Finished checkouts kept per repository; 0 parks none. */
  recycledPerRepo: number;
  logger?: Logger;
}

export interface CheckoutMeta extends OwnerRecord {
  jobId: string;
  mirror: string;
}

export interface CheckoutEntry {
  name: string;
  paths: CheckoutPaths;
  meta: CheckoutMeta | null;
}

/** The job checkouts under TACKLE_HOME, and finished ones parked for later jobs of their repository. */
export interface CheckoutPool {
  /** The checkout paths of a job, cleared of what a dead owner left; refused while a live owner has them. */
  claim(jobId: string, mirror: string): Promise<CheckoutPaths>;
  /**
   * Fills `dir` with a checkout of `mirror` and no work tree yet: a parked one reset to `sha` when
   * `recycle` and one is there, else a new clone. Returns whether it was recycled. Under the mirror's lock.
   */
  fill(mirror: string, dir: string, sha: string, recycle: boolean): Promise<boolean>;
  /** Moves a finished job's checkout aside for the next job of its repository; false when the pool is full. */
  park(root: string, mirror: string): Promise<boolean>;
  /** Removes every checkout parked for `mirror`. */
  dropParked(mirror: string): Promise<void>;
  list(): Promise<CheckoutEntry[]>;
  /** Removes checkouts whose owner is gone or stale, and parked ones left too long or whose mirror is gone. */
  pruneStale(liveMirrors: readonly string[]): Promise<void>;
}

/** A directory name for a job id: the id itself when it is tame, else a slug plus a hash. */
export function checkoutName(jobId: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9_-]{0,79}$/.test(jobId)) return jobId;
  const slug = jobId
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, 60);
  return `${slug || "job"}-${createHash("sha256").update(jobId).digest("hex").slice(0, 12)}`;
}

export function createCheckoutPool(options: CheckoutPoolOptions): CheckoutPool {
  const { checkoutsDir, recycledDir, templateDir, git, staleAfterMs, recycledPerRepo, logger } = options;

  async function claim(jobId: string, mirror: string): Promise<CheckoutPaths> {
    const paths = checkoutPaths(path.join(checkoutsDir, checkoutName(jobId)));
    await claimCheckout(
      paths,
      { jobId, mirror },
      {
        staleAfterMs,
        inUse: (owner) => new TackleError("workspace", `job ${jobId} already has a live checkout at ${paths.root} (pid ${owner.pid})`, { retryable: true }),
      },
    );
    return paths;
  }

  async function fill(mirror: string, dir: string, sha: string, recycle: boolean): Promise<boolean> {
    if (recycle && (await reuseParked(mirror, dir, sha))) return true;
    await git.run({ args: ["clone", "--shared", "--no-checkout", "--quiet", `--template=${templateDir}`, mirror, dir], protocols: ["file"] });
    return false;
  }

  function poolOf(mirror: string): string {
    return path.join(recycledDir, createHash("sha256").update(mirror).digest("hex").slice(0, 16));
  }

  async function park(root: string, mirror: string): Promise<boolean> {
    if (recycledPerRepo <= 0) return false;
    const pool = poolOf(mirror);
    await mkdir(pool, { recursive: true, mode: 0o700 });
    if ((await readdir(pool)).length >= recycledPerRepo) return false;
    await rename(root, path.join(pool, `${Date.now()}-${randomBytes(4).toString("hex")}`));
    return true;
  }

  /** Takes a parked checkout of `mirror` (the newest) into `dir`; false when there is none. */
  async function unpark(mirror: string, dir: string): Promise<boolean> {
    const pool = poolOf(mirror);
    for (const entry of (await readdir(pool).catch(() => [] as string[])).sort().reverse()) {
      // Another process may take the same one first: rename is atomic, so only one of us gets it.
      if (
        await rename(path.join(pool, entry), dir).then(
          () => true,
          () => false,
        )
      )
        return true;
    }
    return false;
  }

  /**
   * Turns an earlier job's checkout into what a fresh clone at `sha` would be, rewriting only the
   * files that differ: a new `.git` cloned from the mirror (so none of its refs, stash, reflogs,
   * objects, config, hooks or info files survive), untracked and ignored files removed, and every
   * tracked file compared byte for byte with its blob (never by the stat data the earlier job could
   * forge, nor through attributes that would let a changed file compare equal) and left to be
   * rewritten when it differs. The caller then checks out `sha` with -f.
   */
  async function resetParked(dir: string, mirror: string, sha: string): Promise<void> {
    const gitDir = path.join(dir, ".git");
    await removeTree(gitDir);
    const fresh = path.join(recycledDir, `new-${process.pid}-${randomBytes(4).toString("hex")}`);
    try {
      await git.run({ args: ["clone", "--shared", "--no-checkout", "--quiet", `--template=${templateDir}`, mirror, fresh], protocols: ["file"] });
      await rename(path.join(fresh, ".git"), gitDir);
    } finally {
      await removeTree(fresh);
    }
    const repo = { gitDir, workTree: dir };
    await git.run({ args: ["read-tree", sha], repo });
    await git.run({ args: ["clean", "-q", "-ffdx"], repo });
    const files: string[] = [];
    for (const entry of (await git.run({ args: ["ls-files", "-s", "-z"], repo })).stdout.split("\0")) {
      const [meta = "", file = ""] = entry.split("\t");
      if (file === "") continue;
      // clean leaves submodule directories alone: empty them, as in a fresh clone.
      if (meta.startsWith("160000 ")) {
        await removeTree(path.join(dir, file));
        await mkdir(path.join(dir, file), { recursive: true });
      } else files.push(file);
    }
    // Files a checkout converts (eol=crlf, ident, working-tree-encoding) cannot be compared with
    // their blob byte for byte: remove them, so the checkout writes them anew.
    if (files.some((file) => path.posix.basename(file) === ".gitattributes")) {
      for (const file of await convertedFiles(repo, files)) await removeTree(path.join(dir, file));
    }
    // Every other attribute is switched off for the comparison: the index has no stat data yet, so
    // each file is hashed as it is on disk and compared with its blob; exit 1 = some differ.
    const attributes = path.join(gitDir, "info", "attributes");
    await mkdir(path.dirname(attributes), { recursive: true });
    await writeFile(attributes, "* -text -eol -crlf -ident -filter -working-tree-encoding\n");
    try {
      await git.run({ args: ["update-index", "-q", "--refresh"], repo, okExitCodes: [0, 1] });
    } finally {
      await removeTree(path.dirname(attributes));
    }
    await clearModeBits(dir, gitDir);
  }

  /** Which of `files` a checkout would not write byte for byte as their blob, by the index's attributes. */
  async function convertedFiles(repo: GitRepoLocation, files: readonly string[]): Promise<string[]> {
    const { stdout } = await git.run({
      args: ["check-attr", "--cached", "-z", "--stdin", "eol", "ident", "working-tree-encoding"],
      repo,
      input: `${files.join("\0")}\0`,
    });
    const fields = stdout.split("\0");
    const converted = new Set<string>();
    for (let i = 0; i + 2 < fields.length; i += 3) {
      const [file = "", attribute, value] = [fields[i], fields[i + 1], fields[i + 2]];
      const applies =
        (attribute === "eol" && value === "crlf") ||
        (attribute === "ident" && value === "set") ||
        (attribute === "working-tree-encoding" && value !== "unspecified" && value !== "unset");
      if (applies) converted.add(file);
    }
    return [...converted];
  }

  /** A parked checkout of this mirror reset to `sha` in `dir`, or false (then `dir` does not exist). */
  async function reuseParked(mirror: string, dir: string, sha: string): Promise<boolean> {
    if (!(await unpark(mirror, dir))) return false;
    try {
      await resetParked(dir, mirror, sha);
      return true;
    } catch (error) {
      logger?.warn({ err: error, dir }, "could not recycle a checkout; cloning afresh");
      await removeTree(dir);
      return false;
    }
  }

  async function dropParked(mirror: string): Promise<void> {
    await removeTree(poolOf(mirror));
  }

  async function readMeta(metaPath: string): Promise<CheckoutMeta | null> {
    const text = await readFile(metaPath, "utf8").catch(() => null);
    if (text === null) return null;
    const owner = parseOwnerRecord(text);
    if (!owner) return null;
    const raw = JSON.parse(text) as Partial<CheckoutMeta>;
    return { ...owner, jobId: String(raw.jobId ?? ""), mirror: String(raw.mirror ?? "") };
  }

  async function list(): Promise<CheckoutEntry[]> {
    const entries = await readdir(checkoutsDir).catch(() => [] as string[]);
    const names = new Set(entries.map(checkoutNameOf));
    const result: CheckoutEntry[] = [];
    for (const name of names) {
      const paths = checkoutPaths(path.join(checkoutsDir, name));
      result.push({ name, paths, meta: await readMeta(paths.metaPath) });
    }
    return result;
  }

  async function pruneStale(liveMirrors: readonly string[]): Promise<void> {
    for (const { name, paths, meta } of await list()) {
      if (meta && (await isOwnerAlive(meta, staleAfterMs))) continue;
      logger?.info({ checkout: name, pid: meta?.pid }, "removing stale checkout");
      await removeCheckout(paths);
    }
    // Parked checkouts nobody recycled in time, or whose mirror is gone.
    const livePools = new Set(liveMirrors.map(poolOf));
    for (const pool of await readdir(recycledDir).catch(() => [] as string[])) {
      const poolDir = path.join(recycledDir, pool);
      const maker = /^new-(\d+)-/.exec(pool);
      if (maker) {
        // A fresh .git being made for a recycled checkout; left behind only by a crash.
        if (!(await isLocalPidAlive(Number(maker[1]), staleAfterMs))) await removeTree(poolDir);
        continue;
      }
      if (!livePools.has(poolDir)) {
        await removeTree(poolDir);
        continue;
      }
      for (const entry of await readdir(poolDir).catch(() => [] as string[])) {
        const parkedAt = Number(entry.split("-")[0]);
        if (!(Date.now() - parkedAt < staleAfterMs)) await removeTree(path.join(poolDir, entry));
      }
    }
  }

  return { claim, fill, park, dropParked, list, pruneStale };
}
