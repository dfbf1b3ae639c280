/**
 * The fake GitHub's git side: real bare repositories on disk, written with git plumbing (no
 * working tree needed) and served over smart HTTP by git's own CGI, so `git clone`/`git push`
 * exercise exactly the protocol they use against GitHub.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, rm, writeFile, chmod } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { execa } from "execa";
import { cleanGitEnv } from "./clean-git-env.js";

export const ZERO_SHA = "0000000000000000000000000000000000000000";
export const FAKE_AUTHOR = { name: "Fake", email: "fake@example.com" } as const;

/** File content for a seeded commit; `null` deletes the path. */
export type SeedFile = string | Buffer | { content: string | Buffer; executable: true } | null;

export interface GitContext {
  /** Directory holding `<owner>/<repo>.git`; also git-http-backend's GIT_PROJECT_ROOT. */
  root: string;
  /** HOME for every git child process, so user config never leaks in. */
  home: string;
}

export async function git(
  ctx: GitContext,
  gitDir: string,
  args: string[],
  options: { input?: string | Buffer; env?: Record<string, string>; keepFinalNewline?: boolean } = {},
): Promise<string> {
  const result = await execa("git", ["--git-dir", gitDir, ...args], {
    env: cleanGitEnv(ctx.home, options.env),
    extendEnv: false,
    stripFinalNewline: !options.keepFinalNewline,
    ...(options.input === undefined ? {} : { input: options.input }),
  });
  return result.stdout;
}

/** Like `git`, but resolves to undefined instead of throwing (for probes such as rev-parse). */
export async function tryGit(ctx: GitContext, gitDir: string, args: string[], keepFinalNewline = false): Promise<string | undefined> {
  try {
    return await git(ctx, gitDir, args, { keepFinalNewline });
  } catch {
    return undefined;
  }
}

/**
 * GitHub refuses pushes from an App that touch workflow files unless the App holds the
 * `workflows` permission. The server passes the pusher's permission in the environment
 * (git-http-backend hands its environment down to receive-pack and its hooks).
 */
const PRE_RECEIVE_HOOK = `#!/bin/sh
[ "$FAKE_GITHUB_WORKFLOWS" = "write" ] && exit 0
status=0
while read -r old new ref; do
  [ "$new" = "${ZERO_SHA}" ] && continue
  files=$(git rev-list "$new" --not --all | while read -r c; do
    git diff-tree --no-commit-id --name-only -r --root "$c"
  done | grep '^\\.github/workflows/' | sort -u)
  [ -z "$files" ] && continue
  echo "$files" | while IFS= read -r f; do
    echo "refusing to allow a GitHub App to create or update workflow \\\`$f\\\` without \\\`workflows\\\` permission" >&2
  done
  status=1
done
exit $status
`;

export async function initBareRepo(ctx: GitContext, gitDir: string, defaultBranch: string): Promise<void> {
  await mkdir(gitDir, { recursive: true });
  await git(ctx, gitDir, ["init", "--bare", "--quiet", `--initial-branch=${defaultBranch}`]);
  const config: Array<[string, string]> = [
    ["http.receivepack", "true"],
    // GitHub serves partial clones and fetches of any reachable commit; tests of the repo cache rely on both.
    ["uploadpack.allowFilter", "true"],
    ["uploadpack.allowReachableSHA1InWant", "true"],
  ];
  for (const [key, value] of config) await git(ctx, gitDir, ["config", key, value]);
  const hook = join(gitDir, "hooks", "pre-receive");
  await writeFile(hook, PRE_RECEIVE_HOOK);
  await chmod(hook, 0o755);
}

export async function resolveCommit(ctx: GitContext, gitDir: string, ref: string): Promise<string | undefined> {
  const out = await tryGit(ctx, gitDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
  return out?.trim() || undefined;
}

export async function branchSha(ctx: GitContext, gitDir: string, branch: string): Promise<string | undefined> {
  return resolveCommit(ctx, gitDir, `refs/heads/${branch}`);
}

export async function listBranches(ctx: GitContext, gitDir: string): Promise<Array<{ name: string; sha: string }>> {
  const out = await git(ctx, gitDir, ["for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads"]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [name = "", sha = ""] = line.split(" ");
      return { name, sha };
    });
}

/**
 * Commits `files` on top of `branch` (or as a root commit when the branch does not exist) using a
 * throwaway index, so seeding never needs a clone. Returns the new commit sha.
 */
export async function commitFiles(
  ctx: GitContext,
  gitDir: string,
  options: {
    branch: string;
    files: Record<string, SeedFile>;
    message: string;
    /** Start the branch from this commit when it does not exist yet. */
    from?: string;
    author?: { name: string; email: string };
  },
): Promise<string> {
  const author = options.author ?? FAKE_AUTHOR;
  const indexFile = join(ctx.home, `index-${randomBytes(6).toString("hex")}`);
  const env = {
    GIT_INDEX_FILE: indexFile,
    GIT_AUTHOR_NAME: author.name,
    GIT_AUTHOR_EMAIL: author.email,
    GIT_COMMITTER_NAME: author.name,
    GIT_COMMITTER_EMAIL: author.email,
  };
  const run = (args: string[], input?: string | Buffer) => git(ctx, gitDir, args, input === undefined ? { env } : { env, input });
  try {
    const parent = (await branchSha(ctx, gitDir, options.branch)) ?? options.from;
    await run(parent ? ["read-tree", parent] : ["read-tree", "--empty"]);
    for (const [path, file] of Object.entries(options.files)) {
      if (file === null) {
        await run(["update-index", "--force-remove", "--", path]);
        continue;
      }
      const isObject = typeof file === "object" && !Buffer.isBuffer(file);
      const content = isObject ? file.content : file;
      const mode = isObject ? "100755" : "100644";
      const blob = (await run(["hash-object", "-w", "--stdin"], content)).trim();
      await run(["update-index", "--add", "--cacheinfo", `${mode},${blob},${path}`]);
    }
    const tree = (await run(["write-tree"])).trim();
    const commit = (await run(["commit-tree", tree, ...(parent ? ["-p", parent] : []), "-m", options.message])).trim();
    await run(["update-ref", `refs/heads/${options.branch}`, commit, ...(parent ? [] : [ZERO_SHA])]);
    return commit;
  } finally {
    await rm(indexFile, { force: true });
  }
}

export interface TreeEntry {
  mode: string;
  type: "blob" | "tree" | "commit";
  sha: string;
  size: number | undefined;
  path: string;
}

/** `git ls-tree -l` of `path` at `commit`; for a directory path pass `listChildren` to get its entries. */
export async function lsTree(ctx: GitContext, gitDir: string, commit: string, path: string, listChildren: boolean): Promise<TreeEntry[]> {
  const target = listChildren ? (path === "" ? "" : `${path.replace(/\/$/, "")}/`) : path;
  const args = ["ls-tree", "-l", "-z", commit];
  if (target !== "") args.push("--", target);
  const out = await tryGit(ctx, gitDir, args);
  if (out === undefined) return [];
  return out
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [meta = "", entryPath = ""] = line.split("\t");
      const [mode = "", type = "", sha = "", size = "-"] = meta.split(/\s+/);
      return {
        mode,
        type: type as TreeEntry["type"],
        sha,
        size: size === "-" ? undefined : Number(size),
        path: entryPath,
      };
    });
}

export async function readBlob(ctx: GitContext, gitDir: string, sha: string): Promise<Buffer> {
  const result = await execa("git", ["--git-dir", gitDir, "cat-file", "blob", sha], {
    env: cleanGitEnv(ctx.home),
    extendEnv: false,
    encoding: "buffer",
    stripFinalNewline: false,
  });
  return Buffer.from(result.stdout);
}

/** `git show ref:path`, or undefined when the ref or path does not exist. */
export async function showFile(ctx: GitContext, gitDir: string, ref: string, path: string): Promise<string | undefined> {
  return tryGit(ctx, gitDir, ["show", `${ref}:${path}`], true);
}

/** Copies `ref` from another bare repo (a fork) into `gitDir` as `target`, like GitHub's refs/pull/N/head. */
export async function fetchRef(ctx: GitContext, gitDir: string, fromDir: string, ref: string, target: string): Promise<void> {
  await git(ctx, gitDir, ["fetch", "--quiet", "--no-tags", fromDir, `+${ref}:${target}`]);
}

export async function diffStats(
  ctx: GitContext,
  gitDir: string,
  base: string,
  head: string,
): Promise<{ commits: number; additions: number; deletions: number; changedFiles: number }> {
  const mergeBase = (await tryGit(ctx, gitDir, ["merge-base", base, head]))?.trim() || base;
  const count = Number((await git(ctx, gitDir, ["rev-list", "--count", `${mergeBase}..${head}`])).trim());
  const numstat = await git(ctx, gitDir, ["diff", "--numstat", mergeBase, head]);
  let additions = 0;
  let deletions = 0;
  let changedFiles = 0;
  for (const line of numstat.split("\n").filter(Boolean)) {
    const [add = "0", del = "0"] = line.split("\t");
    additions += Number(add) || 0;
    deletions += Number(del) || 0;
    changedFiles += 1;
  }
  return { commits: count, additions, deletions, changedFiles };
}

export interface GitHttpRequest {
  req: IncomingMessage;
  res: ServerResponse;
  /** `/<owner>/<repo>.git/...` as git-http-backend expects it in PATH_INFO. */
  pathInfo: string;
  query: string;
  remoteUser: string;
  extraEnv: Record<string, string>;
}

/**
 * Runs git-http-backend as a CGI for one request and streams its answer back. Resolves with the
 * HTTP status sent and the response body bytes (for transfer-size benchmarks).
 */
export function serveGitHttp(ctx: GitContext, request: GitHttpRequest): Promise<{ status: number; bytesSent: number }> {
  const { req, res } = request;
  const env = cleanGitEnv(ctx.home, {
    GIT_PROJECT_ROOT: ctx.root,
    GIT_HTTP_EXPORT_ALL: "1",
    PATH_INFO: request.pathInfo,
    REQUEST_METHOD: req.method ?? "GET",
    QUERY_STRING: request.query,
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: request.remoteUser,
    REMOTE_ADDR: req.socket.remoteAddress ?? "127.0.0.1",
    GATEWAY_INTERFACE: "CGI/1.1",
    ...request.extraEnv,
  });
  if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
  // CGI passes request headers as HTTP_*: git-http-backend reads HTTP_CONTENT_ENCODING to inflate
  // gzip bodies (git gzips large fetch negotiations) and HTTP_GIT_PROTOCOL for protocol v2.
  const encoding = req.headers["content-encoding"];
  if (typeof encoding === "string") env.HTTP_CONTENT_ENCODING = encoding;
  const protocol = req.headers["git-protocol"];
  if (typeof protocol === "string") env.HTTP_GIT_PROTOCOL = protocol;

  return new Promise((resolve) => {
    const child = spawn("/usr/lib/git-core/git-http-backend", [], { env, stdio: ["pipe", "pipe", "pipe"] });
    let headerBuffer: Buffer | undefined = Buffer.alloc(0);
    let status = 200;
    let bytesSent = 0;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      if (headerBuffer === undefined) {
        bytesSent += chunk.length;
        res.write(chunk);
        return;
      }
      headerBuffer = Buffer.concat([headerBuffer, chunk]);
      const split = findHeaderEnd(headerBuffer);
      if (!split) return;
      const head = headerBuffer.subarray(0, split.index).toString("latin1");
      const rest = headerBuffer.subarray(split.index + split.length);
      headerBuffer = undefined;
      for (const line of head.split(/\r?\n/)) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 500;
        else res.setHeader(name, value);
      }
      res.statusCode = status;
      if (rest.length > 0) {
        bytesSent += rest.length;
        res.write(rest);
      }
    });
    child.on("error", (error) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(`git-http-backend failed: ${error.message}`);
      resolve({ status: 500, bytesSent });
    });
    child.on("close", () => {
      if (headerBuffer !== undefined) {
        // The CGI died before sending headers: surface its stderr to help debug the test.
        status = 500;
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(`git-http-backend produced no response: ${stderr}`);
      } else {
        res.end();
      }
      resolve({ status, bytesSent });
    });
    // Ignore EPIPE when the backend exits early (e.g. a rejected request it never read).
    child.stdin.on("error", () => {});
    req.pipe(child.stdin);
  });
}

function findHeaderEnd(buffer: Buffer): { index: number; length: number } | undefined {
  const crlf = buffer.indexOf("\r\n\r\n");
  const lf = buffer.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { index: crlf, length: 4 };
  if (lf >= 0) return { index: lf, length: 2 };
  return undefined;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  author: { name: string; email: string; date: string };
  committer: { name: string; email: string; date: string };
  message: string;
}

export async function commitInfo(ctx: GitContext, gitDir: string, sha: string): Promise<CommitInfo> {
  const format = ["%H", "%T", "%P", "%an", "%ae", "%aI", "%cn", "%ce", "%cI", "%B"].join("%x00");
  const out = await git(ctx, gitDir, ["show", "-s", `--format=${format}`, sha]);
  const [hash = "", tree = "", parents = "", an = "", ae = "", ad = "", cn = "", ce = "", cd = "", ...message] = out.split("\0");
  const utc = (date: string) => new Date(date).toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    sha: hash,
    tree,
    parents: parents.split(" ").filter(Boolean),
    author: { name: an, email: ae, date: utc(ad) },
    committer: { name: cn, email: ce, date: utc(cd) },
    message: message.join("\0").trimEnd(),
  };
}

/** The object a fully qualified ref points at, or undefined. */
export async function refSha(ctx: GitContext, gitDir: string, ref: string): Promise<string | undefined> {
  return (await tryGit(ctx, gitDir, ["show-ref", "--verify", "--hash", ref]))?.trim() || undefined;
}
