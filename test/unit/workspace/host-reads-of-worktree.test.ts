// The rule "no host read of agent-writable files outside one guarded reader", as the source holds it:
// every file under src/ that imports a node:fs API able to read a file's content is either the
// reader itself (src/workspace/read-worktree-file.ts) or listed here with what it reads and why
// that is not a file the agent can write. A new import of such an API fails this test until
// someone decides: go through the FsPort's `read`, or add the file here with its reason.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve("src");

/** node:fs names that read a file's content, or open one (which may block on a FIFO). */
const READ_APIS = new Set(["readFile", "readFileSync", "createReadStream", "open", "openSync", "read", "readSync", "readv", "readvSync", "promises"]);

const THE_READER = "workspace/read-worktree-file.ts";

/** Files allowed to read with node:fs, and what they read: paths the operator or the host owns, never the agent. */
const HOST_OWNED: Record<string, string> = {
  "agent/replay-client.ts": "a recorded model session the operator names (tackle run --replay)",
  "config/dot-env.ts": "the operator's .env",
  "config/env.ts": "the App's private key file (PRIVATE_KEY_PATH)",
  "jobs/file-job-store.ts": "the job store under TACKLE_HOME, written by the host only",
  "main/action.ts": "the Actions runner's event payload (GITHUB_EVENT_PATH)",
  "main/cli.ts": "Tackle's own package.json and the operator's --task-file",
  "logging/environment-secrets.ts": "the credential files the operator's environment names (the App key, Google and AWS credentials), to mask their secrets",
  "main/model-provider-checks.ts": "the provider's credential files the operator's environment names",
  "main/receive.ts": "the payload file the operator names (tackle receive --payload)",
  "main/setup.ts": "the App manifest and the .env tackle setup writes (opened for writing)",
  "workspace/checkout-paths.ts": "the checkout's meta file beside it under TACKLE_HOME, outside every sandbox",
  "workspace/checkout-pool.ts": "the pool's meta files under TACKLE_HOME, outside every sandbox",
  "workspace/extract-repo-extensions.ts": "opens for writing only (O_EXCL, O_NOFOLLOW) into a directory the host made",
  "workspace/file-memory-backend.ts": "the memory store under TACKLE_HOME, written by the host only",
  "workspace/fs-util.ts": "opens directories only (O_DIRECTORY|O_NOFOLLOW|O_NONBLOCK), to remove a tree as root without following a link; reads no content",
  "workspace/freeze-processes.ts": "/proc/<pid>/stat of the job's processes (kernel state, not files)",
  "workspace/local-workspace.ts": "the user's own objects/info/alternates (the agent never writes the user's .git) and the host's meta file",
  "workspace/mirror-store.ts": "the mirror's bookkeeping files, written by the host only",
  "workspace/owner-record.ts": "/proc/<pid>/stat (kernel state)",
  "workspace/path-guard.ts": "opens for writing only (writeFile, O_NOFOLLOW|O_NONBLOCK); its reads are the reader's",
  "workspace/restore-repo-extensions.ts":
    "mode off only: the extracted extensions folder, agent-writable there; opened O_NOFOLLOW|O_NONBLOCK and compared with the host's in-memory copy, never trusted",
  "workspace/read-extension-files.ts": "the agents and skills the host extracted from the default branch into a directory it owns (read-only to the agent)",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

/** The read APIs a file imports from node:fs or node:fs/promises (named, default or namespace imports). */
function readApisImported(source: string): string[] {
  const found: string[] = [];
  const imports = source.matchAll(/import\s+([^;]*?)\s+from\s+["'](?:node:)?fs(?:\/promises)?["']/g);
  for (const [, clause = ""] of imports) {
    if (!clause.includes("{")) {
      found.push(`${clause.trim()} (the whole module)`);
      continue;
    }
    const names = clause.slice(clause.indexOf("{") + 1, clause.lastIndexOf("}")).split(",");
    for (const raw of names) {
      const name =
        raw
          .trim()
          .replace(/^type\s+/, "")
          .split(/\s+as\s+/)[0] ?? "";
      if (READ_APIS.has(name)) found.push(name);
    }
  }
  if (/\b(?:require|import)\(\s*["'](?:node:)?fs/.test(source)) found.push("a dynamic import of fs");
  return found;
}

describe("host reads of agent-writable files", () => {
  const readers = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const apis = readApisImported(readFileSync(file, "utf8"));
    if (apis.length > 0) readers.set(path.relative(SRC, file).split(path.sep).join("/"), apis);
  }

  it("go through the one guarded reader: node:fs read APIs are imported only by it and by files that read host-owned paths", () => {
    const unlisted = [...readers.keys()].filter((file) => file !== THE_READER && HOST_OWNED[file] === undefined);
    expect(unlisted.map((file) => `${file}: ${readers.get(file)?.join(", ")}`)).toEqual([]);
  });

  it("the reader is where the reads are, and every listed file still reads (the list does not go stale)", () => {
    expect(readers.has(THE_READER)).toBe(true);
    expect(Object.keys(HOST_OWNED).filter((file) => !readers.has(file))).toEqual([]);
  });

  it("the file tools and the policy read nothing with node:fs", () => {
    const agentSide = [...readers.keys()].filter((file) => file.startsWith("agent/tools/") || file.startsWith("agent/policy/"));
    expect(agentSide).toEqual([]);
  });
});
