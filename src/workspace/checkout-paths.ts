import { readFile, writeFile } from "node:fs/promises";
import { removeTree } from "./fs-util.js";
import { currentOwner, isCurrentProcess, isOwnerAlive, parseOwnerRecord, type OwnerRecord } from "./owner-record.js";

/**
 * A checkout and what lives beside it, each named after it: one name claims, lists and removes
 * them all, for server jobs and local runs alike.
 */
export interface CheckoutPaths {
  /** The working tree; its `.git` is the agent's to write. */
  root: string;
  /** Who owns the checkout: an {@link OwnerRecord} and the caller's own fields. */
  metaPath: string;
  /** The sandbox's HOME. */
  homeDir: string;
  /** The sandbox's /tmp, one for all the job's commands. */
  tmpDir: string;
  /** The host's publish repository: outside the sandbox, the only repository of the job the host decides in. */
  publishDir: string;
  /** The repository's agents and skills from the default branch, the host's; read-only in the sandbox. */
  extensionsDir: string;
  /** A local run's extra worktrees (the Worktree tool), one directory each: beside the checkout, never inside it. */
  worktreesDir: string;
}

/** What each path beside the checkout adds to its name. */
const SUFFIXES = [".json", ".home", ".tmp", ".publish", ".extensions", ".worktrees"];

export function checkoutPaths(root: string): CheckoutPaths {
  return {
    root,
    metaPath: `${root}.json`,
    homeDir: `${root}.home`,
    tmpDir: `${root}.tmp`,
    publishDir: `${root}.publish`,
    extensionsDir: `${root}.extensions`,
    worktreesDir: `${root}.worktrees`,
  };
}

/** The checkout a directory entry belongs to: its name without the suffix of a path beside it. */
export function checkoutNameOf(entry: string): string {
  const suffix = SUFFIXES.find((candidate) => entry.endsWith(candidate));
  return suffix === undefined ? entry : entry.slice(0, -suffix.length);
}

/**
 * Takes `paths` for this process: what a dead owner (or this process) left there is removed first;
 * a live owner's is refused with `inUse`. `fields` are written into the owner record.
 */
export async function claimCheckout(
  paths: CheckoutPaths,
  fields: Record<string, string>,
  options: { staleAfterMs: number; inUse: (owner: OwnerRecord) => Error },
): Promise<void> {
  const text = await readFile(paths.metaPath, "utf8").catch(() => null);
  const owner = text === null ? null : parseOwnerRecord(text);
  if (owner && !isCurrentProcess(owner) && (await isOwnerAlive(owner, options.staleAfterMs))) throw options.inUse(owner);
  await removeTree(paths.root);
  await removeTree(paths.homeDir);
  await removeTree(paths.tmpDir);
  await removeTree(paths.publishDir);
  await removeTree(paths.extensionsDir);
  await removeTree(paths.worktreesDir);
  await writeFile(paths.metaPath, JSON.stringify({ ...(await currentOwner()), ...fields }), { mode: 0o644 });
}

export async function removeCheckout(paths: CheckoutPaths): Promise<void> {
  await removeTree(paths.root);
  await removeTree(paths.homeDir);
  await removeTree(paths.tmpDir);
  await removeTree(paths.publishDir);
  await removeTree(paths.extensionsDir);
  await removeTree(paths.worktreesDir);
  await removeTree(paths.metaPath);
}
