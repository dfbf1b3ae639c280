import { spawn } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { cleanGitEnv } from "../../fakes/clean-git-env.js";

export const isRoot = process.getuid?.() === 0;

/** A temp dir removed by the returned cleanup; `sandboxWritable` hands it to the sandbox user (65534). */
export function tempDir(prefix: string, options: { sandboxWritable?: boolean } = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), `tackle-${prefix}-`));
  if (options.sandboxWritable && isRoot) chownSync(dir, 65534, 65534);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function git(cwd: string, args: string[], home = cwd): Promise<string> {
  const result = await execa("git", args, { cwd, env: cleanGitEnv(home), extendEnv: false });
  return result.stdout;
}

/** A user's checkout at `repo` (made if missing): `main` with README.md in one commit, as a local run finds it. */
export async function makeUserRepo(repo: string, home: string): Promise<void> {
  await execa("mkdir", ["-p", repo]);
  await git(repo, ["init", "--quiet", "-b", "main"], home);
  await execa("sh", ["-c", "echo hi > README.md"], { cwd: repo });
  await git(repo, ["add", "-A"], home);
  await git(repo, ["-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "--quiet", "-m", "initial"], home);
}

/**
 * For local runs as root: `base` made world-traversable and, in it, a user's checkout (`makeUserRepo`)
 * owned by uid and gid 1000, as the owner asking root to run Tackle on it. Returns its path.
 */
export async function makeOwnedRepo(base: string, name = "project"): Promise<string> {
  await execa("chmod", ["0755", base]);
  const repo = path.join(base, name);
  await makeUserRepo(repo, base);
  await execa("chown", ["-R", "1000:1000", repo]);
  return repo;
}

/**
 * A bare "remote" with `main` (README.md, src/app.ts) and a stale `tackle/issue-1` branch, written
 * through a scratch clone with the test's own identity.
 */
export async function makeRemote(
  base: string,
): Promise<{ remote: string; work: string; push(files: Record<string, string>, message: string, branch?: string): Promise<string> }> {
  const remote = path.join(base, "remote.git");
  const work = path.join(base, "work");
  await git(base, ["init", "--quiet", "--bare", "-b", "main", remote]);
  await git(base, ["init", "--quiet", "-b", "main", work]);
  await git(work, ["config", "user.name", "Test"]);
  await git(work, ["config", "user.email", "test@example.com"]);
  await git(work, ["remote", "add", "origin", remote]);
  const push = async (files: Record<string, string>, message: string, branch = "main"): Promise<string> => {
    await git(work, ["checkout", "--quiet", "-B", branch]);
    for (const [file, content] of Object.entries(files)) {
      await execa("mkdir", ["-p", path.dirname(path.join(work, file))]);
      await execa("sh", ["-c", 'printf "%s" "$1" > "$2"', "sh", content, path.join(work, file)]);
    }
    await git(work, ["add", "-A"]);
    await git(work, ["commit", "--quiet", "-m", message]);
    await git(work, ["push", "--quiet", "--force", "origin", `${branch}:${branch}`]);
    return git(work, ["rev-parse", "HEAD"]);
  };
  await push({ "README.md": "hello\n", "src/app.ts": "export const x = 1;\n" }, "initial");
  await push({ "stale.txt": "old attempt\n" }, "stale attempt", "tackle/issue-1");
  await git(work, ["checkout", "--quiet", "main"]);
  return { remote, work, push };
}

export interface GitHttpServer {
  url: string;
  /** Authorization headers received, in order. */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * Smart HTTP on 127.0.0.1 through git's own CGI (git http-backend): refuses (401) any request
 * without `Authorization: Basic base64(x-access-token:<token>)`, so a fetch or push that works
 * proves the credential reached git through the environment.
 */
export async function startGitHttpServer(projectRoot: string, token: string, home: string): Promise<GitHttpServer> {
  const expected = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  const authorizations: Array<string | undefined> = [];
  const server: Server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="test"' }).end();
      return;
    }
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const env: Record<string, string> = {
      ...cleanGitEnv(home),
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_USER: "x-access-token",
      REMOTE_ADDR: "127.0.0.1",
    };
    if (req.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];
    if (req.headers["git-protocol"]) env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
    const cgi = spawn("git", ["http-backend"], { env });
    req.pipe(cgi.stdin);
    const chunks: Buffer[] = [];
    cgi.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    cgi.on("close", () => {
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf("\r\n\r\n");
      const headerText = raw.subarray(0, split).toString("utf8");
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of headerText.split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers).end(raw.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    authorizations,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A server on the host's loopback that counts every connection; the sandbox must never reach it. */
export async function startCanaryServer(): Promise<{ port: number; hits: number; close(): Promise<void> }> {
  const state = { hits: 0 };
  const server = createServer((_req, res) => {
    res.end("host secret page\n");
  });
  server.on("connection", () => {
    state.hits += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    get hits() {
      return state.hits;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Processes whose command line contains `needle` (read from /proc). */
export function processesMatching(needle: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      if (cmdline.includes(needle)) found.push(`${entry}: ${cmdline}`);
    } catch {
      // exited meanwhile
    }
  }
  return found;
}
