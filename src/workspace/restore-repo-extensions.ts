import { constants } from "node:fs";
import { lstat, mkdir, open, readdir } from "node:fs/promises";
import path from "node:path";
import { TackleError } from "../errors/index.js";
import type { Logger } from "../logging/logger.js";
import { extractedFiles, rewriteExtensionFiles, type ExtensionFiles, type ExtractedFile } from "./extract-repo-extensions.js";
import { removeTree } from "./fs-util.js";

/*
 * Without bubblewrap (mode "off") nothing but ownership keeps the extracted agents, skills and hooks
 * read-only to commands, and where Tackle is not root the commands run as the files' owner: chmod,
 * rm and mv all work. So before every command the host compares the folder with the files it
 * extracted and still holds in memory (never with anything a command could have written), and
 * rewrites it when they differ. What a hook or a skill's command then finds is the default branch's,
 * unless a process of the job that is still running changes it between this check and the read
 * (docs/security-model.md, "What is not isolated").
 */

const restoring = new WeakMap<ExtensionFiles, Promise<unknown>>();

/**
 * Makes `extension.dir` hold exactly the files extraction wrote there again (names, contents, modes, no links) when a
 * command changed it, and says whether it had to. One check at a time per folder; throws, refusing
 * the command, when the folder differs again right after it was rewritten.
 */
export function restoreRepoExtensions(extension: ExtensionFiles, logger?: Logger): Promise<boolean> {
  const previous = restoring.get(extension) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(() => restoreNow(extension, logger));
  restoring.set(extension, next);
  return next;
}

async function restoreNow(extension: ExtensionFiles, logger: Logger | undefined): Promise<boolean> {
  const files = extractedFiles(extension);
  if (files === undefined) throw new TackleError("workspace", `${extension.dir} was not extracted by this process: nothing to compare it with`);
  if (await matches(extension.dir, files)) return false;
  logger?.warn({ dir: extension.dir }, "a command changed the repository's extracted agents, skills or hooks; restoring the default branch's");
  await removeTree(extension.dir);
  await mkdir(extension.dir, { mode: 0o755 });
  await rewriteExtensionFiles(extension.dir, files);
  if (!(await matches(extension.dir, files))) {
    throw new TackleError(
      "workspace",
      `the repository's agents, skills and hooks in ${extension.dir} changed again while they were restored: no command runs on them`,
    );
  }
  return true;
}

/** Whether `dir` holds exactly the extracted `files` and their folders, nothing else. */
async function matches(dir: string, files: readonly ExtractedFile[]): Promise<boolean> {
  const wanted = new Map(files.map((file) => [file.path, file]));
  const folders = new Set<string>([""]);
  for (const file of files) {
    for (let parent = path.posix.dirname(file.path); parent !== "."; parent = path.posix.dirname(parent)) folders.add(parent);
  }
  let seen = 0;
  const walk = async (folder: string): Promise<boolean> => {
    const full = path.join(dir, ...folder.split("/").filter(Boolean));
    const info = await lstat(full).catch(() => null);
    if (!info?.isDirectory() || (info.mode & 0o7777) !== 0o755) return false;
    seen += 1;
    for (const name of await readdir(full)) {
      const child = folder === "" ? name : `${folder}/${name}`;
      if (folders.has(child)) {
        if (!(await walk(child))) return false;
        continue;
      }
      const file = wanted.get(child);
      if (file === undefined || !(await sameFile(path.join(full, name), file))) return false;
      seen += 1;
    }
    return true;
  };
  return (await walk("")) && seen === folders.size + wanted.size;
}

/**
 * Whether `target` is the regular file `file`, read the guarded way: no link followed, a FIFO or
 * device opened without blocking and refused, no more read than the file should hold.
 */
async function sameFile(target: string, file: ExtractedFile): Promise<boolean> {
  const mode = file.executable ? 0o555 : 0o444;
  const info = await lstat(target).catch(() => null);
  if (!info?.isFile() || (info.mode & 0o7777) !== mode || info.size !== file.content.length) return false;
  const handle = await open(target, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (handle === null) return false;
  try {
    const opened = await handle.stat();
    if (!opened.isFile() || opened.ino !== info.ino || opened.size !== file.content.length) return false;
    const buffer = Buffer.alloc(file.content.length + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length === file.content.length && buffer.subarray(0, length).equals(file.content);
  } finally {
    await handle.close();
  }
}
