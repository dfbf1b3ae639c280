import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import path from "node:path";

export interface ExtensionFileSet {
  /** Every regular file, repo-relative (forward slashes), sorted. */
  fileList: string[];
  /** Repo-relative paths of the executable ones. */
  executable: Set<string>;
  /** Texts of the files `wanted` picked. */
  files: Array<{ path: string; content: string }>;
  /** Wanted files too large to be definitions, each named. */
  problems: string[];
}

/** A definition file larger than this is not a prompt anyone meant; the whole tree is capped at extraction too. */
const MAX_DEFINITION_BYTES = 256 * 1024;

/**
 * Lists the extracted tree of the repository's agents and skills (see extractRepoExtensions) and
 * reads the files `wanted` names. Never follows a symlink: extraction writes none, and one found
 * is skipped.
 */
export async function readExtensionFiles(dir: string, wanted: (repoPath: string) => boolean): Promise<ExtensionFileSet> {
  const fileList: string[] = [];
  const executable = new Set<string>();
  await walk(dir, "", fileList, executable);
  fileList.sort();
  const files: Array<{ path: string; content: string }> = [];
  const problems: string[] = [];
  for (const repoPath of fileList.filter(wanted)) {
    const content = await readSmallFile(path.join(dir, repoPath));
    if (content !== null) files.push({ path: repoPath, content });
    else problems.push(`${repoPath}: larger than ${MAX_DEFINITION_BYTES} bytes, more than an agent's or a skill's instructions need`);
  }
  return { fileList, executable, files, problems };
}

async function walk(dir: string, prefix: string, fileList: string[], executable: Set<string>): Promise<void> {
  for (const name of await readdir(path.join(dir, prefix))) {
    const repoPath = prefix === "" ? name : `${prefix}/${name}`;
    const info = await lstat(path.join(dir, repoPath));
    if (info.isDirectory()) await walk(dir, repoPath, fileList, executable);
    else if (info.isFile()) {
      fileList.push(repoPath);
      if ((info.mode & 0o111) !== 0) executable.add(repoPath);
    }
  }
}

/** The file's text, or null when it is over {@link MAX_DEFINITION_BYTES}. */
async function readSmallFile(file: string): Promise<string | null> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if ((await handle.stat()).size > MAX_DEFINITION_BYTES) return null;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
