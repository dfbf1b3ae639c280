import { constants } from "node:fs";
import { chmod, mkdir, open } from "node:fs/promises";
import path from "node:path";
import { REPO_EXTENSION_PATHS } from "../config/repo-extension-paths.js";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { removeTree } from "./fs-util.js";
import type { GitRepoLocation, HostGit } from "./git-host.js";

export interface ExtensionLimits {
  /** @defaultValue 2000 */
  maxFiles: number;
  /** Total bytes of the files kept. @defaultValue 5 MiB */
  maxBytes: number;
}

export const DEFAULT_EXTENSION_LIMITS: ExtensionLimits = { maxFiles: 2000, maxBytes: 5 * 1024 * 1024 };

export interface ExtractRepoExtensionsOptions {
  git: HostGit;
  /** A repository only the host writes that holds `commit` (the mirror, or a local run's own repository). */
  repo: GitRepoLocation;
  /** The default branch's commit at job start, as a full sha. */
  commit: string;
  /** Where the files go: the host's, beside the checkout; must not exist yet. */
  dir: string;
  limits?: Partial<ExtensionLimits>;
  logger?: Logger;
  signal?: AbortSignal;
}

export interface ExtensionFiles {
  dir: string;
  commit: string;
}

/** One extracted file, as the host wrote it. */
export interface ExtractedFile {
  /** Repo-relative, forward slashes. */
  path: string;
  executable: boolean;
  content: Buffer;
}

interface TreeEntry {
  mode: string;
  oid: string;
  size: number;
  path: string;
}

/**
 * What each extraction wrote, kept by the host: where nothing else keeps the folder read-only to
 * commands (mode "off"), restoreRepoExtensions compares it with this before each command.
 */
const written = new WeakMap<ExtensionFiles, readonly ExtractedFile[]>();

/** The files extraction wrote for `files`, or undefined when it was not made by extractRepoExtensions. */
export function extractedFiles(files: ExtensionFiles): readonly ExtractedFile[] | undefined {
  return written.get(files);
}

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const LS_TREE_LINE = /^(\d{6}) (\w+) ([0-9a-f]+) +(\d+|-)\t(.*)$/s;
const REGULAR = new Set(["100644", "100755"]);

/**
 * Copies `.tackle/agents`, `.tackle/skills`, `.claude/skills` and `.tackle/hooks` of `commit` into `dir`, from git's
 * objects (ls-tree + cat-file; nothing is checked out, no working tree is read). Only regular files
 * and their executable bit are kept: symlinks and submodules are dropped, and so are names git
 * should never have stored (`..`, `.git`, control characters), so nothing in `dir` points outside
 * it. Files are read-only (0444, 0555 when executable) and the host's; `dir` is bound read-only in
 * the sandbox. Past the limits the rest is dropped, in precedence order, with a warning. Returns
 * null, creating nothing, when the commit has no such files.
 */
export async function extractRepoExtensions(options: ExtractRepoExtensionsOptions): Promise<ExtensionFiles | null> {
  const { git, repo, commit, dir, logger } = options;
  if (!SHA.test(commit)) throw new TackleError("workspace", `extracting repository extensions needs a full commit sha, not '${commit}'`);
  const limits = { ...DEFAULT_EXTENSION_LIMITS, ...options.limits };
  const signal = options.signal ? { signal: options.signal } : {};
  const listed = await git.run({ args: ["ls-tree", "-r", "-z", "-l", "--full-tree", commit, "--", ...REPO_EXTENSION_PATHS], repo, ...signal });
  const { kept, dropped } = selectEntries(parseLsTree(listed.stdout), limits);
  if (dropped.length > 0) logger?.warn({ commit, dropped: dropped.slice(0, 20), count: dropped.length }, droppedSummary(dropped.length, limits));
  if (kept.length === 0) return null;

  const contents = await readBlobs(git, repo, kept, options.signal);
  const files = kept.map((entry) => {
    const content = contents.get(entry.oid);
    if (content === undefined || content.length !== entry.size) throw new TackleError("workspace", `git returned a different ${entry.path} than it listed`);
    return { path: entry.path, executable: entry.mode === "100755", content };
  });
  await mkdir(dir, { mode: 0o755 });
  try {
    const extracted = { dir, commit };
    written.set(extracted, await writeEntries(dir, files, logger));
    return extracted;
  } catch (error) {
    await removeTree(dir);
    throw error;
  }
}

function droppedSummary(count: number, limits: ExtensionLimits): string {
  return (
    `left ${count} entr${count === 1 ? "y" : "ies"} of the repository's agents, skills and hooks out: symlinks, submodules and unsafe names ` +
    `are never extracted, and at most ${limits.maxFiles} files of ${limits.maxBytes} bytes in all are`
  );
}

function parseLsTree(stdout: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const line of stdout.split("\0")) {
    if (line === "") continue;
    const match = LS_TREE_LINE.exec(line);
    if (!match) throw new TackleError("workspace", `unexpected git ls-tree output: ${JSON.stringify(line.slice(0, 200))}`);
    const [, mode = "", , oid = "", size = "", entryPath = ""] = match;
    entries.push({ mode, oid, size: size === "-" ? 0 : Number(size), path: entryPath });
  }
  return entries;
}

/** Why an entry is never extracted, or null when it may be. */
function refusal(entry: TreeEntry): string | null {
  if (!REGULAR.has(entry.mode)) return entry.mode === "120000" ? "symlink" : entry.mode === "160000" ? "submodule" : `mode ${entry.mode}`;
  const segments = entry.path.split("/");
  const unsafe = segments.some((segment) => segment === "" || segment === "." || segment === ".." || segment.toLowerCase() === ".git");
  if (unsafe || /[\x00-\x1f\x7f]/.test(entry.path)) return "unsafe name";
  if (!REPO_EXTENSION_PATHS.some((root) => entry.path.startsWith(`${root}/`))) return "outside the extension folders";
  return null;
}

/** Regular files in precedence order (`.tackle/agents`, `.tackle/skills`, `.claude/skills`, `.tackle/hooks`), within the limits. */
function selectEntries(entries: TreeEntry[], limits: ExtensionLimits): { kept: TreeEntry[]; dropped: Array<{ path: string; reason: string }> } {
  const rank = (entry: TreeEntry) => REPO_EXTENSION_PATHS.findIndex((root) => entry.path.startsWith(`${root}/`));
  const dropped: Array<{ path: string; reason: string }> = [];
  const candidates: TreeEntry[] = [];
  for (const entry of entries) {
    const reason = refusal(entry);
    if (reason === null) candidates.push(entry);
    else dropped.push({ path: entry.path, reason });
  }
  candidates.sort((a, b) => rank(a) - rank(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const kept: TreeEntry[] = [];
  let bytes = 0;
  for (const entry of candidates) {
    if (kept.length >= limits.maxFiles || bytes + entry.size > limits.maxBytes) {
      dropped.push({ path: entry.path, reason: "over the limit" });
      continue;
    }
    kept.push(entry);
    bytes += entry.size;
  }
  return { kept, dropped };
}

/** The blobs' contents by object id, through one `cat-file --batch`. */
async function readBlobs(git: HostGit, repo: GitRepoLocation, entries: TreeEntry[], signal: AbortSignal | undefined): Promise<Map<string, Buffer>> {
  const oids = [...new Set(entries.map((entry) => entry.oid))];
  const expected = entries.reduce((sum, entry) => sum + entry.size, 0) + oids.length * 100;
  const result = await git.runBytes({ args: ["cat-file", "--batch"], repo, input: `${oids.join("\n")}\n`, maxBytes: expected, ...(signal ? { signal } : {}) });
  if (result.exitCode !== 0) throw new TackleError("workspace", `reading the repository's agents and skills failed: ${result.stderr.trim().slice(-500)}`);
  const out = new Map<string, Buffer>();
  const buffer = result.stdout;
  let position = 0;
  while (position < buffer.length) {
    const newline = buffer.indexOf(10, position);
    if (newline === -1) break;
    const [oid = "", type = "", size = ""] = buffer.subarray(position, newline).toString("utf8").split(" ");
    if (type !== "blob") throw new TackleError("workspace", `object ${oid} of the repository's agents and skills is ${type || "unreadable"}, not a file`);
    const length = Number(size);
    out.set(oid, buffer.subarray(newline + 1, newline + 1 + length));
    position = newline + 1 + length + 1;
  }
  return out;
}

/**
 * Writes each file new (O_EXCL, O_NOFOLLOW) under `dir`, which only the host has written: a tree
 * naming one path twice, or a file where a folder should be, loses the later entry, never overwrites.
 * Returns the files written.
 */
async function writeEntries(dir: string, files: readonly ExtractedFile[], logger: Logger | undefined): Promise<ExtractedFile[]> {
  const clashes: string[] = [];
  const written: ExtractedFile[] = [];
  const dirs = new Set<string>([dir]);
  for (const file of files) {
    const target = path.join(dir, ...file.path.split("/"));
    try {
      for (let parent = path.dirname(target); parent !== dir; parent = path.dirname(parent)) dirs.add(parent);
      await mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
      const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
      try {
        await handle.writeFile(file.content);
        await handle.chmod(modeOf(file));
      } finally {
        await handle.close();
      }
      written.push(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EEXIST" && code !== "ENOTDIR") throw error;
      clashes.push(file.path);
    }
  }
  if (clashes.length > 0)
    logger?.warn({ clashes: clashes.slice(0, 20) }, "the repository's agents and skills name some paths twice; the later ones were left out");
  // mkdir's mode is filtered by the umask; the sandbox user must be able to list and enter every folder.
  for (const folder of dirs) await chmod(folder, 0o755).catch(() => undefined);
  return written;
}

/** Writes the extracted files again into the empty folder `dir` (see restoreRepoExtensions). */
export async function rewriteExtensionFiles(dir: string, files: readonly ExtractedFile[]): Promise<void> {
  const written = await writeEntries(dir, files, undefined);
  if (written.length !== files.length) throw new TackleError("workspace", `could not write the repository's agents, skills and hooks into ${dir} again`);
}

function modeOf(file: ExtractedFile): number {
  return file.executable ? 0o555 : 0o444;
}
