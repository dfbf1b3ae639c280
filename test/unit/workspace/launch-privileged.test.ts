/**
 * The launcher for privileged helpers (src/workspace/launch-privileged.ts) is the only way they start:
 * by absolute path from the system directories, with a fixed environment, a command's own
 * environment set by env(1) after any drop. The source checks below fail when a new file spawns a
 * process, or names a helper to a spawn function, outside it.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { dropPrivileges, HELPERS, helperArgv, helperPath, runHelperSync, TRUSTED_PATH, withEnvironment } from "../../../src/workspace/launch-privileged.js";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

const files = sourceFiles("src").map((file) => ({ file, text: readFileSync(file, "utf8") }));

/** Files that may start processes, and why each is not a privileged helper's way around the launcher. */
const MAY_SPAWN: Record<string, string> = {
  "src/workspace/launch-privileged.ts": "the launcher itself",
  "src/workspace/git-host.ts": "host git, with an environment built from nothing",
  "src/workspace/search.ts": "ripgrep from its package's absolute path, fixed environment",
  "src/workspace/fs-util.ts": "chown, chmod and find on Tackle's own trees",
  "src/workspace/file-lock.ts": "flock holding a lock file",
  "src/main/doctor.ts": "version probes for `tackle doctor`",
};

describe("only the launcher starts privileged helpers", () => {
  it("no file outside the known few imports node:child_process or execa for values", () => {
    const spawning = files
      .filter(({ text }) => /^import (?!type )[^;]*from "(node:child_process|execa)"/m.test(text))
      .map(({ file }) => file)
      .sort();
    expect(spawning).toEqual(Object.keys(MAY_SPAWN).sort());
  });

  it("no file but the launcher names a helper to a spawn function", () => {
    const names = HELPERS.join("|");
    const call = new RegExp(`\\b(spawn|spawnSync|execa|execaSync|execFile|execFileSync|execSync|exec|run)\\(\\s*["'\`](${names})["'\` ]`);
    const offenders = files.filter(({ file, text }) => file !== "src/workspace/launch-privileged.ts" && call.test(text)).map(({ file }) => file);
    expect(offenders).toEqual([]);
  });
});

describe("helper commands", () => {
  it("name each helper by an absolute path in the system directories, whatever the process's PATH", () => {
    const saved = process.env.PATH;
    process.env.PATH = `.:${saved ?? ""}`;
    try {
      for (const name of ["setpriv", "env", "sh", "bash"] as const) {
        const found = helperPath(name);
        expect(found, name).not.toBeNull();
        expect(TRUSTED_PATH.split(":")).toContain(path.dirname(found!));
      }
    } finally {
      process.env.PATH = saved;
    }
  });

  it("apply a command's environment last, with env -i, so nothing before it inherits it", () => {
    const argv = dropPrivileges({ uid: 65534, gid: 65534 }, withEnvironment({ LD_PRELOAD: "/x.so", A: "b=c" }, ["bash", "-c", "true"]));
    expect(argv[0]).toBe(helperPath("setpriv"));
    const env = argv.indexOf(helperPath("env")!);
    expect(argv.slice(env)).toEqual([helperPath("env"), "-i", "LD_PRELOAD=/x.so", "A=b=c", "bash", "-c", "true"]);
    expect(() => withEnvironment({ "-u": "x" }, ["bash"])).toThrow(/invalid environment variable name/);
    expect(() => withEnvironment({}, ["A=b"])).toThrow(/cannot follow env's assignments/);
    expect(() => dropPrivileges({ uid: 0, gid: 0 }, ["bash"])).toThrow(/refusing to drop privileges to uid 0/);
  });

  it("start with the fixed environment only, not the process's", () => {
    const saved = { ...process.env };
    process.env.LD_DEBUG = "files";
    process.env.TACKLE_PLANTED = "planted";
    try {
      const result = runHelperSync(helperArgv("env", []), { timeoutMs: 10_000 });
      expect(result.stdout.trim().split("\n")).toEqual([`PATH=${TRUSTED_PATH}`]);
      expect(result.stderr).not.toContain("needed by");
    } finally {
      delete process.env.LD_DEBUG;
      delete process.env.TACKLE_PLANTED;
      Object.assign(process.env, saved);
    }
  });
});
