import { MAX_SYMLINK_TARGET_BYTES } from "../../config/index.js";
import type { TreeSymlinks } from "../ports.js";

/** The kernel's MAXSYMLINKS: a lookup that follows more links than this fails with ELOOP. */
export const MAX_SYMLINK_HOPS = 40;

/**
 * Where a symlink leads, in the one form the protected-path rules compare: repository-relative, no `.`
 * or empty segment, no trailing slash ("" for the root). `via` names the tree's symlinks its target
 * went through (the first three). What the host cannot settle is `unclear`, with `why` completing
 * "its target …".
 */
export type SymlinkDestination =
  | { kind: "inside"; path: string; via: readonly string[] }
  | { kind: "outside"; via: readonly string[] }
  | { kind: "unclear"; why: string };

/** The work every resolution of one check shares; once it is spent, what is left is `unclear` and `exhausted` is set. */
export interface ResolveBudget {
  steps: number;
  exhausted: boolean;
}

export function createResolveBudget(steps: number): ResolveBudget {
  return { steps, exhausted: false };
}

/** Takes one step of `budget`; false once it is spent. */
export function spend(budget: ResolveBudget): boolean {
  budget.steps -= 1;
  if (budget.steps < 0) budget.exhausted = true;
  return !budget.exhausted;
}

export interface SymlinkResolver {
  /** Where the symlink at `linkPath`, one of the tree's, leads when it is opened. */
  destination(linkPath: string): SymlinkDestination;
}

type Resolved =
  | { kind: "inside"; path: string; hops: number; via: string[] }
  | { kind: "outside"; hops: number; via: string[] }
  | {
      kind: "unclear";
      why: string;
      /** About the walked link's own target (a NUL, its length): the link that goes through it names it. */
      own: boolean;
      /** False when the answer depends on where the lookup began (nesting cut short, budget spent): not kept. */
      settled: boolean;
    };

const PENDING = Symbol("pending");

/**
 * Resolves symlinks the way the kernel does, component by component, through the symlinks of one tree
 * (`links`): a name that is a symlink there is replaced by where it leads, `..` climbs from wherever the
 * walk stands, and at most {@link MAX_SYMLINK_HOPS} links are followed in one lookup. A name that is no
 * symlink in the tree counts as a directory: a path git stores has only real directories above it (git
 * refuses a path beyond a symbolic link, and a tree holding `a` both as a link and as a directory fails
 * `index-pack --strict`), and a missing name or a file only leaves the link dangling. A tree whose links
 * form a loop answers `unclear` for every link that goes through it, as the kernel answers ELOOP.
 *
 * Each link of the tree is resolved at most once (its destination does not depend on who goes through
 * it), so a tree costs about the length of its targets, counted against `budget`.
 */
export function createSymlinkResolver(links: TreeSymlinks, budget: ResolveBudget): SymlinkResolver {
  const memo = new Map<string, Resolved | typeof PENDING>();

  /** The link at `linkPath` followed to its end; `depth` is how many links the lookup is already inside. */
  function follow(linkPath: string, depth: number): Resolved {
    const known = memo.get(linkPath);
    if (known === PENDING) return { kind: "unclear", why: `goes round a loop of symlinks (through ${linkPath})`, own: false, settled: true };
    if (known !== undefined) return known;
    // Nesting this deep means more links followed than the kernel allows, whoever started the lookup.
    if (depth > MAX_SYMLINK_HOPS) return tooManyHops(false);
    memo.set(linkPath, PENDING);
    const target = links.get(linkPath);
    const walked: Resolved =
      typeof target === "string"
        ? walk(parentOf(linkPath), target, depth)
        : { kind: "unclear", why: `is over ${MAX_SYMLINK_TARGET_BYTES} bytes, longer than a symlink can hold`, own: true, settled: true };
    const result = walked.kind === "unclear" ? walked : walked.hops + 1 > MAX_SYMLINK_HOPS ? tooManyHops(true) : { ...walked, hops: walked.hops + 1 };
    if (result.kind !== "unclear" || result.settled) memo.set(linkPath, result);
    else memo.delete(linkPath);
    return result;
  }

  /** `target` read from the real directory `dir` ("" for the root). */
  function walk(dir: string, target: string, depth: number): Resolved {
    if (target.includes("\0")) return { kind: "unclear", why: "holds a NUL byte, which cuts it short on checkout", own: true, settled: true };
    if (target.startsWith("/")) return { kind: "outside", hops: 0, via: [] };
    let at = dir;
    let hops = 0;
    const via: string[] = [];
    for (const name of target.split("/")) {
      if (!spend(budget)) return { kind: "unclear", why: "takes more resolving than the publish check does", own: false, settled: false };
      if (name === "" || name === ".") continue;
      if (name === "..") {
        if (at === "") return { kind: "outside", hops, via };
        at = parentOf(at);
        continue;
      }
      const candidate = at === "" ? name : `${at}/${name}`;
      if (!links.has(candidate)) {
        at = candidate;
        continue;
      }
      const next = follow(candidate, depth + 1);
      if (next.kind === "unclear") {
        return next.own ? { ...next, why: `goes through the symlink ${candidate}, whose target ${next.why}`, own: false } : next;
      }
      hops += next.hops;
      if (hops > MAX_SYMLINK_HOPS) return tooManyHops(true);
      if (via.length < 3 && !via.includes(candidate)) via.push(candidate);
      if (next.kind === "outside") return { kind: "outside", hops, via };
      at = next.path;
    }
    return { kind: "inside", path: at, hops, via };
  }

  return {
    destination(linkPath) {
      const resolved = follow(linkPath, 0);
      switch (resolved.kind) {
        case "inside":
          return { kind: "inside", path: resolved.path, via: resolved.via };
        case "outside":
          return { kind: "outside", via: resolved.via };
        case "unclear":
          return { kind: "unclear", why: resolved.why };
      }
    },
  };
}

function tooManyHops(settled: boolean): Resolved {
  return { kind: "unclear", why: `passes through more than ${MAX_SYMLINK_HOPS} symlinks, more than the kernel follows`, own: false, settled };
}

function parentOf(linkPath: string): string {
  const slash = linkPath.lastIndexOf("/");
  return slash === -1 ? "" : linkPath.slice(0, slash);
}

/** Whether two resolutions of one link lead to the same place (two unclear answers count as one). */
export function sameDestination(a: SymlinkDestination, b: SymlinkDestination): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind !== "inside" || (b.kind === "inside" && a.path === b.path);
}
