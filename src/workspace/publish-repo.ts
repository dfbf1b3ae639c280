import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { ChangedPath, PublishApproval, PublishedChange, PublishVerdict } from "../agent/ports.js";
import { MAX_PUBLISHED_FILE_BYTES, MAX_SYMLINK_TARGET_BYTES } from "../config/index.js";
import { TackleError } from "../errors/index.js";
import { removeTree } from "./fs-util.js";
import { assertTreeSymlinks, isLinkEntry, type ListedSymlink, publishedSymlinks } from "./published-symlinks.js";
import type { GitRepoLocation, HostGit } from "./git-host.js";
import { addedBytesOver, lineBudget, lineCount, lineDelta, type LineBudget } from "../util/count-lines.js";
import { MAX_PACK_BYTES, parseNumstat, type CheckoutReader } from "./git-port.js";

/**
 * What leaves a job is decided here, from objects the host owns. The agent can write anything in
 * its checkout: refs (`main`, `origin/main`, FETCH_HEAD), replace refs, grafts, shallow files,
 * attributes, loose objects whose content does not match their name. None of that is read when
 * deciding. The host copies the commits to publish out of the checkout as a pack and indexes it
 * in a bare repository of its own (index-pack names every object by its content and refuses
 * broken ones), then compares the exact commit to publish with the base sha it recorded at
 * prepare, in that repository, with replace refs, grafts, attributes, textconv and external diff
 * off. The push (or the hand-over to the user's repository) is made from there, by sha.
 */

const SHA = /^[0-9a-f]{40}$/;
/** Bound on indexing or copying one publish's pack. */
const INDEX_TIMEOUT_MS = 120_000;
const EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

export interface PublishRepo {
  readonly gitDir: string;
  /** Indexes a pack from the agent's side here, verified object by object; `tip` must then be a commit here. */
  importPack(pack: Buffer, tip: string, signal?: AbortSignal): Promise<void>;
  /**
   * The change `from..tip` as the host sees it in this repository. Both must be here (or in its
   * alternates). `base`, when it differs from `from` (a pull request's base branch), also counts as
   * known content: a commit that only brings in what the base already has touches nothing.
   */
  inspect(from: string, tip: string, base?: string): Promise<PublishedChange>;
  /** `git format-patch` of from..tip, from this repository's objects. */
  formatPatch(from: string, tip: string): Promise<string>;
  /** Whether `ancestor` is an ancestor of (or equal to) `tip`. */
  isAncestor(ancestor: string, tip: string): Promise<boolean>;
  dispose(): Promise<void>;
}

/**
 * Entries the new commits' trees may hold against the start, all commits together (each distinct tree
 * once): each is read and checked on the Tackle process, so past this the publish is refused before
 * reading them (a check of 500,000 held the event loop 12 s). 20 commits that each differ from the
 * start in 1,000 files reach it.
 */
const MAX_HISTORY_ENTRIES = 20_000;

/** `raw` (diff-tree -z output) when it holds at most MAX_HISTORY_ENTRIES entries (counted by their NULs, before any parsing); else the publish is refused. */
function withinHistoryBound(raw: string): string {
  let nulls = 0;
  for (let at = raw.indexOf("\0"); at !== -1; at = raw.indexOf("\0", at + 1)) {
    nulls += 1;
    // A raw entry ends its header and its path with a NUL each; a name-only entry with one.
    if (nulls > 2 * MAX_HISTORY_ENTRIES + 1) {
      throw new TackleError(
        "push_refused",
        `the branch's commits change more than ${MAX_HISTORY_ENTRIES} paths in all (each commit's files against the start), more than the publish check reads; make fewer commits (squash them) or a smaller change`,
      );
    }
  }
  return raw;
}

/** Options that keep a host command from reading anything a repository could plant. */
const INSPECT_ARGS = ["-c", "core.attributesFile=/dev/null", "-c", `attr.tree=${EMPTY_TREE}`, "-c", "diff.external=", "-c", "core.quotePath=false"];

export function assertSha(sha: string, what: string): string {
  if (!SHA.test(sha)) throw new TackleError("push_refused", `${what} is not a commit id: '${sha.slice(0, 80)}'`);
  return sha;
}

/**
 * A bare repository only the host writes, borrowing `alternates` (object directories the host owns
 * or the user's own repository) read-only. Nothing of it is visible in the sandbox.
 */
export async function createPublishRepo(git: HostGit, dir: string, alternates: readonly string[], templateDir: string): Promise<PublishRepo> {
  await removeTree(dir);
  await mkdir(path.dirname(dir), { recursive: true });
  await git.run({ args: ["init", "--bare", "--quiet", `--template=${templateDir}`, dir] });
  await mkdir(path.join(dir, "objects", "info"), { recursive: true });
  await writeFile(path.join(dir, "objects", "info", "alternates"), alternates.map((a) => `${a}\n`).join(""));
  const repo: GitRepoLocation = { gitDir: dir };
  const run = (args: readonly string[], okExitCodes: readonly number[] = [0], input?: string) =>
    git.run({ args: [...INSPECT_ARGS, ...args], repo, okExitCodes, ...(input !== undefined ? { input } : {}) });

  async function importPack(pack: Buffer, tip: string, signal?: AbortSignal): Promise<void> {
    await indexPack(git, { to: repo, pack, tip, ...(signal ? { signal } : {}) });
  }

  async function formatPatch(from: string, tip: string): Promise<string> {
    return (
      await run([
        "format-patch",
        "--stdout",
        "--binary",
        "--no-color",
        "--no-ext-diff",
        `${assertSha(from, "the base commit")}..${assertSha(tip, "the published commit")}`,
      ])
    ).stdout;
  }

  /**
   * Each new commit's whole tree against `from` (and against `base`): a path counts when it differs
   * from both. Root commits, merges and "evil" merges are commits like any other here, so whatever
   * state of a protected path any pushed commit holds is seen, even if a later commit undoes it.
   */
  async function commitTrees(commits: readonly string[], from: string, base: string | undefined): Promise<{ all: RawEntry[]; counted: RawEntry[] }> {
    if (commits.length === 0) return { all: [], counted: [] };
    // A "<commit> <parent>" line makes diff-tree compare the commit with that tree-ish.
    const against = async (other: string) =>
      parseRawDiff(
        withinHistoryBound(
          (await run(["diff-tree", "--stdin", "-r", "-z", "--raw", "--no-renames", "--full-index"], [0], commits.map((c) => `${c} ${other}\n`).join("")))
            .stdout,
        ),
      );
    const fromEntries = await against(from);
    if (base === undefined || base === from) return { all: fromEntries, counted: fromEntries };
    const alsoBase = new Set((await against(base)).map((entry) => `${entry.commit}\0${entry.path}`));
    return { all: fromEntries, counted: fromEntries.filter((entry) => alsoBase.has(`${entry.commit}\0${entry.path}`)) };
  }

  /**
   * The commits, one for each distinct tree: commits sharing a tree hold the same files, so each tree
   * is compared with the start once (500 empty commits over 1,000 files made 500,000 entries and held
   * the event loop 12 s).
   */
  async function oneCommitPerTree(commits: readonly string[]): Promise<string[]> {
    if (commits.length === 0) return [];
    const listed = await run(["log", "--stdin", "--no-walk=unsorted", "--format=%H %T"], [0], `${commits.join("\n")}\n`);
    const trees = new Set<string>();
    const kept: string[] = [];
    for (const line of listed.stdout.split("\n")) {
      const [commit = "", tree = ""] = line.split(" ");
      if (!SHA.test(commit) || trees.has(tree)) continue;
      trees.add(tree);
      kept.push(commit);
    }
    return kept;
  }

  /** The paths any new commit adds against the start, trees included (an empty directory's name is in the history too). */
  async function addedNames(commits: readonly string[], from: string): Promise<Set<string>> {
    if (commits.length === 0) return new Set();
    const listed = await run(
      ["diff-tree", "--stdin", "-r", "-t", "-z", "--no-commit-id", "--name-only", "--diff-filter=A", "--no-renames"],
      [0],
      commits.map((c) => `${c} ${from}\n`).join(""),
    );
    return new Set(
      withinHistoryBound(listed.stdout)
        .split("\0")
        .filter((name) => name !== ""),
    );
  }

  async function objectSizes(shas: readonly string[]): Promise<Map<string, number>> {
    const sizes = new Map<string, number>();
    if (shas.length === 0) return sizes;
    const checked = await run(["cat-file", "--batch-check=%(objectname) %(objectsize)"], [0], `${shas.join("\n")}\n`);
    for (const line of checked.stdout.split("\n")) {
      const [sha, size] = line.split(" ");
      if (sha && size && /^\d+$/.test(size)) sizes.set(sha, Number(size));
    }
    return sizes;
  }

  /** The symlinks of `tree` (a commit), with their blobs and sizes, from one `ls-tree`. */
  async function listSymlinks(tree: string, what: string): Promise<Map<string, ListedSymlink>> {
    const listed = await run(["ls-tree", "-r", "-l", "-z", "--full-tree", tree]);
    const links = new Map<string, ListedSymlink>();
    for (const record of listed.stdout.split("\0")) {
      // "<mode> <type> <sha> <padded size>\t<path>"
      if (!record.startsWith("120000 ")) continue;
      const tab = record.indexOf("\t");
      const [, , sha = "", size = ""] = record.slice(0, tab).split(/ +/);
      links.set(record.slice(tab + 1), { sha, size: Number(size) });
      assertTreeSymlinks([], links.size, what);
    }
    return links;
  }

  async function inspect(from: string, tip: string, base?: string): Promise<PublishedChange> {
    assertSha(from, "the base commit");
    assertSha(tip, "the commit to publish");
    if (base !== undefined) assertSha(base, "the base branch's commit");
    const [raw, numstat, commits] = await Promise.all([
      run(["diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-ext-diff", "--no-textconv", "--full-index", from, tip]),
      run(["diff-tree", "-r", "-z", "--numstat", "--no-renames", "--no-ext-diff", "--no-textconv", from, tip]),
      run(["rev-list", tip, "--not", from, ...(base !== undefined && base !== from ? [base] : [])]),
    ]);
    const entries = parseRawDiff(raw.stdout);
    // What git called binary ("-") is missing here and counted by content below.
    const lines = new Map(parseNumstat(numstat.stdout).flatMap((entry) => (entry.lines === null ? [] : [[entry.path, entry.lines] as const])));
    const commitList = commits.stdout.split("\n").filter((line) => SHA.test(line));
    // One commit per distinct tree, for every comparison of a commit's tree with the start below.
    const distinct = await oneCommitPerTree(commitList);
    // The tip's own tree is the net change, already in `entries`.
    const { counted: perCommit, all: commitTreesAll } = await commitTrees(
      distinct.filter((commit) => commit !== tip),
      from,
      base,
    );
    const wanted = new Set<string>();
    for (const entry of [...entries, ...perCommit]) {
      for (const [mode, sha] of [
        [entry.oldMode, entry.oldSha],
        [entry.newMode, entry.newSha],
      ] as const) {
        if (!/^0+$/.test(sha) && mode !== "160000") wanted.add(sha);
      }
    }
    for (const entry of commitTreesAll) if (entry.newMode === "120000") wanted.add(entry.newSha);
    // Symlinks are resolved through the links of their trees, listed only when a commit adds, changes or removes one.
    const knownBase = base !== undefined && base !== from ? base : undefined;
    const [sizes, commitSizes, names, [fromLinks, baseLinks] = []] = await Promise.all([
      objectSizes([...wanted]),
      objectSizes(commitList),
      addedNames(distinct, from),
      [...entries, ...commitTreesAll].some(isLinkEntry)
        ? Promise.all([listSymlinks(from, "the start's tree"), knownBase === undefined ? undefined : listSymlinks(knownBase, "the base branch's tree")])
        : undefined,
    ]);
    // Paths are read as UTF-8: names that differ only in bytes that are not UTF-8 would read alike
    // (128 such files shared one path's byte count), so such a name is refused, as a symlink's is, before any content is read.
    for (const name of [...entries.map((entry) => entry.path), ...perCommit.map((entry) => entry.path), ...names]) {
      if (name.includes("\uFFFD")) {
        throw new TackleError("push_refused", `the change names a path whose name is not UTF-8 (${JSON.stringify(name.slice(0, 200))}); rename it`);
      }
    }
    // Every side of the net change is read (up to the file cap; larger files are refused anyway):
    // lines are counted by our own rule (\r, U+2028 and U+2029 end lines too, which numstat does not
    // count), and the bytes the change adds are measured.
    // Every new commit's version of a path is read too: each reaches the remote's history, so its bytes count.
    const versions = perCommit.filter((entry) => entry.newMode !== "160000").map((entry) => entry.newSha);
    const readable = [...new Set([...entries.flatMap((e) => [e.oldSha, e.newSha]), ...versions])].filter(
      (sha) => !/^0+$/.test(sha) && (sizes.get(sha) ?? Infinity) <= MAX_PUBLISHED_FILE_BYTES,
    );
    // Every link's target is read too, up to what a symlink can hold.
    const linkBlobs = [...(fromLinks?.values() ?? []), ...(baseLinks?.values() ?? [])].flatMap((link) =>
      link.size <= MAX_SYMLINK_TARGET_BYTES ? [link.sha] : [],
    );
    const linkVersions = commitTreesAll.flatMap((entry) =>
      entry.newMode === "120000" && (sizes.get(entry.newSha) ?? Infinity) <= MAX_SYMLINK_TARGET_BYTES ? [entry.newSha] : [],
    );
    const contents = await readBlobs([...new Set([...readable, ...linkBlobs, ...linkVersions])]);
    // What this check compares line by line on the Tackle process; past it, sizes count (upper bounds).
    const budget = lineBudget();

    const changed = (list: RawEntry[]): ChangedPath[] =>
      list.map((entry) => {
        const bytes = Math.max(sizes.get(entry.oldSha) ?? 0, sizes.get(entry.newSha) ?? 0);
        return { path: entry.path, status: entry.status, oldMode: entry.oldMode, newMode: entry.newMode, bytes, ...measure(entry) };
      });
    /** Lines and added bytes of one entry: numstat's count or ours, whichever is larger; what git calls binary counts its content. */
    const measure = (entry: RawEntry): { lines: number; addedBytes: number } => {
      const before = contents.get(entry.oldSha) ?? Buffer.alloc(0);
      const after = contents.get(entry.newSha);
      // Not read (a gitlink, or over the file cap, which is refused): its whole size counts as added.
      if (after === undefined)
        return { lines: lines.get(entry.path) ?? lineCount(before, budget), addedBytes: /^0+$/.test(entry.newSha) ? 0 : (sizes.get(entry.newSha) ?? 0) };
      const delta = lineDelta(before, after, budget);
      const numstat = lines.get(entry.path);
      return {
        lines: numstat === undefined ? lineCount(before, budget) + lineCount(after, budget) : Math.max(numstat, delta.lines),
        addedBytes: delta.addedBytes,
      };
    };
    const net = changed(entries);
    return {
      from,
      sha: tip,
      files: net,
      commitFiles: changed(perCommit),
      commits: commitList.length,
      lines: net.reduce((sum, entry) => sum + entry.lines, 0),
      addedBytes: historyAddedBytes([...entries, ...perCommit], contents, sizes, budget) + metadataBytes(names, commitSizes),
      symlinks: fromLinks === undefined ? null : publishedSymlinks({ fromLinks, baseLinks, net: entries, commitEntries: commitTreesAll, contents }),
    };
  }

  /**
   * The bytes the pushed commits add, from every version of each path a new commit holds (the net
   * change's and each commit's tree against the start): a file added and removed again still reached
   * the remote's history. A version not read (over the file cap, refused anyway) counts whole.
   */
  function historyAddedBytes(all: readonly RawEntry[], contents: ReadonlyMap<string, Buffer>, sizes: ReadonlyMap<string, number>, budget: LineBudget): number {
    const byPath = new Map<string, { before: string; versions: Set<string> }>();
    for (const entry of all) {
      if (/^0+$/.test(entry.newSha) || entry.newMode === "160000") continue;
      const path = byPath.get(entry.path) ?? { before: entry.oldSha, versions: new Set<string>() };
      path.versions.add(entry.newSha);
      byPath.set(entry.path, path);
    }
    let total = 0;
    for (const { before, versions } of byPath.values()) {
      const read = [...versions].flatMap((sha) => (contents.has(sha) ? [contents.get(sha) as Buffer] : []));
      const unread = [...versions].filter((sha) => !contents.has(sha)).reduce((sum, sha) => sum + (sizes.get(sha) ?? 0), 0);
      total += addedBytesOver(contents.get(before) ?? Buffer.alloc(0), read, budget) + unread;
    }
    return total;
  }

  /**
   * The bytes the pushed history holds besides file contents, chosen by whoever committed: each new
   * commit object whole (its message, author and committer), and the name of each path a commit adds,
   * directories included (its tree entry; an empty directory is a name and nothing else). A 200 KB commit message, or 400 empty files with 200-character names, passed a
   * `max_diff_bytes` of 1,000 when only contents counted.
   */
  function metadataBytes(added: ReadonlySet<string>, commitSizes: ReadonlyMap<string, number>): number {
    let total = 0;
    for (const size of commitSizes.values()) total += size;
    for (const path of added) total += Buffer.byteLength(path);
    return total;
  }

  async function readBlobs(shas: readonly string[]): Promise<Map<string, Buffer>> {
    const out = new Map<string, Buffer>();
    if (shas.length === 0) return out;
    const result = await git.runBytes({ args: ["cat-file", "--batch"], repo, input: `${shas.join("\n")}\n`, maxBytes: 512 * 1024 * 1024 });
    if (result.exitCode !== 0) throw new TackleError("push_refused", "the files to publish could not be read back");
    const buffer = result.stdout;
    let position = 0;
    while (position < buffer.length) {
      const newline = buffer.indexOf(10, position);
      if (newline === -1) break;
      const [sha = "", type = "", size = ""] = buffer.subarray(position, newline).toString("utf8").split(" ");
      if (type === "missing") {
        position = newline + 1;
        continue;
      }
      const length = Number(size);
      out.set(sha, buffer.subarray(newline + 1, newline + 1 + length));
      position = newline + 1 + length + 1;
    }
    return out;
  }

  async function isAncestor(ancestor: string, tip: string): Promise<boolean> {
    const result = await run(["merge-base", "--is-ancestor", assertSha(ancestor, "the start commit"), assertSha(tip, "the commit to publish")], [0, 1]);
    return result.exitCode === 0;
  }

  return { gitDir: dir, importPack, inspect, isAncestor, formatPatch, dispose: () => removeTree(dir) };
}

/**
 * Indexes `pack` into `to` (`index-pack --strict` names every object by its content, checks each one
 * and that everything they link to is there), bounded in size and time, then requires `tip` to be a
 * commit there. The pack may come from a hostile repository; `to` is one the host trusts.
 */
export async function indexPack(git: HostGit, options: { to: GitRepoLocation; pack: Buffer; tip: string; signal?: AbortSignal }): Promise<string> {
  assertSha(options.tip, "the commit to publish");
  const indexed = await git.runBytes({
    args: ["index-pack", "--stdin", "--strict", "--fix-thin", `--max-input-size=${MAX_PACK_BYTES}`],
    repo: options.to,
    bytes: options.pack,
    timeoutMs: INDEX_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (indexed.exitCode !== 0) {
    // index-pack reads only the pack's bytes; its message names objects, not host files.
    throw new TackleError(
      "push_refused",
      `the commits to publish are broken or incomplete: ${indexed.timedOut ? "timed out" : indexed.stderr.trim().slice(-300)}`,
    );
  }
  const present = await git.run({ args: ["cat-file", "-e", `${options.tip}^{commit}`], repo: options.to, okExitCodes: [0, 1, 128] });
  if (present.exitCode !== 0) throw new TackleError("push_refused", `${options.tip} is not a commit that can be published`);
  // "pack\t<hash>" (or "keep\t<hash>"): the name of the pack written.
  return indexed.stdout.toString("utf8").trim().split(/\s+/).at(-1) ?? "";
}

/**
 * Copies commits between two repositories the host trusts (its own publish repository, the user's
 * repository), as a pack indexed by `indexPack`: `git` packs them in `from`, `toGit` (the user's
 * repository's owner, for the local hand-over) indexes them in `to`. Returns the new pack's hash.
 */
export async function transferCommits(
  git: HostGit,
  options: { from: GitRepoLocation; to: GitRepoLocation; toGit?: HostGit; tip: string; exclude: readonly string[]; signal?: AbortSignal },
): Promise<string> {
  const { tip, exclude } = options;
  assertSha(tip, "the commit to copy");
  for (const sha of exclude) assertSha(sha, "an excluded commit");
  const revs = exclude.length > 0 ? `${tip}\n--not\n${exclude.join("\n")}\n` : `${tip}\n`;
  const pack = await git.runBytes({
    args: ["pack-objects", "--stdout", "--revs", "--quiet"],
    repo: options.from,
    input: revs,
    maxBytes: MAX_PACK_BYTES,
    timeoutMs: INDEX_TIMEOUT_MS,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (pack.exitCode !== 0) throw new TackleError("workspace", `git pack-objects failed: ${pack.stderr.trim().slice(-300)}`);
  return indexPack(options.toGit ?? git, { to: options.to, pack: pack.stdout, tip, ...(options.signal ? { signal: options.signal } : {}) });
}

interface RawEntry {
  /** With `diff-tree --stdin`: the commit the entry belongs to. */
  commit?: string;
  path: string;
  status: string;
  oldMode: string;
  newMode: string;
  oldSha: string;
  newSha: string;
}

/** Parses `diff-tree -r -z --raw` (no renames): `:old new oldsha newsha status\0path\0`. */
export function parseRawDiff(output: string): RawEntry[] {
  const fields = output.split("\0");
  const entries: RawEntry[] = [];
  let commit: string | undefined;
  for (let i = 0; i < fields.length; i += 1) {
    const head = fields[i] ?? "";
    // With --stdin, the commit's id comes before its entries.
    if (SHA.test(head.trim())) commit = head.trim();
    if (!head.startsWith(":")) continue;
    const [oldMode = "", newMode = "", oldSha = "", newSha = "", status = ""] = head.slice(1).split(" ");
    const file = fields[i + 1] ?? "";
    i += 1;
    entries.push({ ...(commit !== undefined ? { commit } : {}), path: file, status: status.slice(0, 1), oldMode, newMode, oldSha, newSha });
  }
  return entries;
}

/**
 * The one path to publishing, for server jobs and local runs alike: the tip of `branch` in the
 * agent's checkout (a pointer the agent may move: it only names what the agent wants published)
 * is copied into `publish`, measured there from `from`, and handed to `verify`. Returns the sha
 * that may be published, or throws TackleError("push_refused") with the verdict's reason.
 */
export async function verifiedTip(options: {
  publish: PublishRepo;
  /** Reads the agent's repository inside the sandbox. */
  reader: CheckoutReader;
  branch: string;
  from: string;
  /** The base branch's sha when it is not `from` (a pull request's head): its content counts as known. */
  base?: string;
  /** Commits whose objects the publish repository already has through its alternates. */
  exclude: readonly string[];
  verify: (change: PublishedChange) => PublishVerdict;
  /** Asked when `verify` wants a maintainer's word (above require_approval_above). @defaultValue none: refused */
  approve?: PublishApproval | undefined;
  signal?: AbortSignal;
}): Promise<{ sha: string; change: PublishedChange }> {
  const { sha, pack } = await options.reader.packBranch(options.branch, options.exclude, options.signal);
  assertSha(sha, `the tip of ${options.branch}`);
  await options.publish.importPack(pack, sha, options.signal);
  const change = await options.publish.inspect(options.from, sha, options.base);
  const verdict = options.verify(change);
  if (verdict.action === "refuse") throw new TackleError("push_refused", `push refused: ${verdict.reason}`);
  if (verdict.action === "ask" && !(await askToPublish(options.approve, sha, verdict.reason, options.signal))) {
    throw new TackleError("push_refused", `push refused: ${verdict.reason}, and a maintainer did not approve publishing it`);
  }
  return { sha, change };
}

/** A maintainer's word on publishing `sha`; no way to ask is a no. */
async function askToPublish(approve: PublishApproval | undefined, sha: string, reason: string, signal: AbortSignal | undefined): Promise<boolean> {
  if (approve === undefined) return false;
  return approve({ sha, reason }, signal);
}
