import type { PublishedSymlinks, TreeSymlinks } from "../agent/ports.js";
import { MAX_SYMLINK_TARGET_BYTES, MAX_TREE_SYMLINKS } from "../config/index.js";
import { TackleError } from "../errors/index.js";

/** One path of a `diff-tree --raw` against the start (see parseRawDiff). */
export interface TreeEntry {
  /** With `diff-tree --stdin`: the commit whose tree it is. */
  commit?: string;
  path: string;
  oldMode: string;
  newMode: string;
  newSha: string;
}

/** A symlink as `ls-tree -l` lists it. */
export interface ListedSymlink {
  sha: string;
  size: number;
}

const LINK = "120000";

export function isLinkEntry(entry: Pick<TreeEntry, "oldMode" | "newMode">): boolean {
  return entry.oldMode === LINK || entry.newMode === LINK;
}

/**
 * Refuses a tree the publish check will not resolve: more symlinks than MAX_TREE_SYMLINKS (a bound on
 * the work and memory of one check), or a symlink whose name is not UTF-8. Paths are read as UTF-8, which
 * maps every invalid byte to U+FFFD: two such names would be one key, and a link could hide behind another.
 */
export function assertTreeSymlinks(paths: Iterable<string>, count: number, what: string): void {
  if (count > MAX_TREE_SYMLINKS) {
    throw new TackleError(
      "push_refused",
      `${what} holds more than ${MAX_TREE_SYMLINKS} symlinks, more than the publish check resolves; publish a change that adds, changes and removes no symlink there`,
    );
  }
  for (const path of paths) {
    if (path.includes("\uFFFD")) {
      throw new TackleError(
        "push_refused",
        `${what} holds a symlink whose name is not UTF-8 (${JSON.stringify(path.slice(0, 200))}), which the publish check cannot resolve through`,
      );
    }
  }
}

/**
 * The symlinks of the trees a publish holds, from what the host read in its own repository: the start's
 * and the base branch's listings (`ls-tree`), and every other tree as the start's with its diff against
 * the start applied (the net change for the tip, `commitEntries` for each new commit), so a commit's tree
 * costs only its own changes. Commits whose links are the tip's, or another such commit's, are left out.
 * `contents` holds the blobs read; a target it lacks or longer than MAX_SYMLINK_TARGET_BYTES is null.
 */
export function publishedSymlinks(options: {
  fromLinks: ReadonlyMap<string, ListedSymlink>;
  baseLinks: ReadonlyMap<string, ListedSymlink> | undefined;
  net: readonly TreeEntry[];
  commitEntries: readonly TreeEntry[];
  contents: ReadonlyMap<string, Buffer>;
}): PublishedSymlinks {
  const targets = new Map<string, string | null>();
  const targetOf = (sha: string): string | null => {
    if (!targets.has(sha)) {
      const blob = options.contents.get(sha);
      targets.set(sha, blob !== undefined && blob.length <= MAX_SYMLINK_TARGET_BYTES ? blob.toString("utf8") : null);
    }
    return targets.get(sha) ?? null;
  };
  const listed = (links: ReadonlyMap<string, ListedSymlink>, what: string): Map<string, string | null> => {
    assertTreeSymlinks(links.keys(), links.size, what);
    return new Map([...links].map(([path, link]) => [path, targetOf(link.sha)]));
  };
  const from = listed(options.fromLinks, "the start's tree");
  const base = options.baseLinks === undefined ? undefined : listed(options.baseLinks, "the base branch's tree");

  /** The start's tree with the link changes of `entries` applied: path -> sha (null: no longer a symlink). */
  const changesOf = (entries: readonly TreeEntry[]) => {
    const changes = new Map<string, string | null>();
    for (const entry of entries) if (isLinkEntry(entry)) changes.set(entry.path, entry.newMode === LINK ? entry.newSha : null);
    return changes;
  };
  const keyOf = (changes: ReadonlyMap<string, string | null>) =>
    [...changes]
      .map(([path, sha]) => `${path}\0${sha ?? "-"}`)
      .sort()
      .join("\0\0");
  const tree = (changes: ReadonlyMap<string, string | null>, what: string) => overlay(from, changes, targetOf, what);

  const tipChanges = changesOf(options.net);
  const seen = new Set([keyOf(tipChanges)]);
  const byCommit = new Map<string, TreeEntry[]>();
  for (const entry of options.commitEntries) {
    const list = byCommit.get(entry.commit ?? "") ?? [];
    list.push(entry);
    byCommit.set(entry.commit ?? "", list);
  }
  const commits: TreeSymlinks[] = [];
  for (const [commit, entries] of byCommit) {
    const changes = changesOf(entries);
    const key = keyOf(changes);
    if (seen.has(key)) continue;
    seen.add(key);
    commits.push(tree(changes, `the tree of ${commit}`));
  }
  return { from, ...(base === undefined ? {} : { base }), tip: tree(tipChanges, "the tree to publish"), commits };
}

/** `under` with `changes` (path -> sha, null: removed) laid over it, checked like a listed tree. */
function overlay(
  under: ReadonlyMap<string, string | null>,
  changes: ReadonlyMap<string, string | null>,
  targetOf: (sha: string) => string | null,
  what: string,
): TreeSymlinks {
  let count = under.size;
  for (const [path, sha] of changes) count += (sha === null ? 0 : 1) - (under.has(path) ? 1 : 0);
  assertTreeSymlinks(
    [...changes].flatMap(([path, sha]) => (sha === null ? [] : [path])),
    count,
    what,
  );
  return {
    get: (path) => {
      if (!changes.has(path)) return under.get(path);
      const sha = changes.get(path);
      return typeof sha === "string" ? targetOf(sha) : undefined;
    },
    has: (path) => (changes.has(path) ? typeof changes.get(path) === "string" : under.has(path)),
    *entries() {
      for (const [path, sha] of changes) if (sha !== null) yield [path, targetOf(sha)] as const;
      for (const entry of under) if (!changes.has(entry[0])) yield entry;
    },
  };
}
