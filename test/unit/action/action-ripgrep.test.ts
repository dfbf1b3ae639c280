// The Action's ripgrep: found on the step's PATH as an absolute path (the search runs with a PATH of its
// own), installed on a GitHub-hosted runner when missing and sudo needs no password, else one warning.
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { setUpActionRipgrep } from "../../../src/main/action-ripgrep-setup.js";
import { findRipgrep } from "../../../src/main/action-ripgrep.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "tackle-action-rg-"));
  dirs.push(dir);
  return dir;
}

async function executable(file: string): Promise<void> {
  await writeFile(file, "#!/bin/sh\n");
  await chmod(file, 0o755);
}

function recorder() {
  const info: string[] = [];
  const warnings: string[] = [];
  return { info, warnings, log: { info: (line: string) => info.push(line), warning: (text: string) => warnings.push(text) } };
}

describe("findRipgrep", () => {
  it("the first executable `rg` on PATH, as an absolute path, when the package is not beside the bundle", async () => {
    const bundle = pathToFileURL(path.join(await tempDir(), "action.js")).href;
    const notExecutable = await tempDir();
    const named = await tempDir();
    const found = await tempDir();
    const later = await tempDir();
    await writeFile(path.join(notExecutable, "rg"), "text\n");
    await mkdir(path.join(named, "rg"));
    await executable(path.join(found, "rg.real"));
    await symlink(path.join(found, "rg.real"), path.join(found, "rg"));
    await executable(path.join(later, "rg"));
    // A relative entry would be looked up in the worktree the search runs in: skipped, even when it holds an rg.
    const relative = path.relative(process.cwd(), later);
    const searchPath = [relative, notExecutable, named, found, later].join(path.delimiter);
    expect(findRipgrep(searchPath, bundle)).toBe(path.join(found, "rg"));
    expect(findRipgrep([notExecutable, named].join(path.delimiter), bundle)).toBeUndefined();
    expect(findRipgrep("", bundle)).toBeUndefined();
  });

  it("prefers @vscode/ripgrep's binary when it is installed beside the code", () => {
    expect(findRipgrep("", import.meta.url)).toMatch(/@vscode\/ripgrep-[^/]+\/bin\/rg(\.exe)?$/);
  });
});

describe("setUpActionRipgrep", () => {
  it("does nothing when ripgrep is there", async () => {
    const rg = path.join(await tempDir(), "rg");
    await executable(rg);
    const { log, info, warnings } = recorder();
    const sudo = async () => {
      throw new Error("no sudo expected");
    };
    expect(await setUpActionRipgrep({ githubHosted: true, log, ripgrep: rg, sudo })).toBe(true);
    expect([...info, ...warnings]).toEqual([]);
  });

  it("on a GitHub-hosted runner with passwordless sudo: installs Debian's ripgrep, refreshing the package lists once when needed", async () => {
    const rg = path.join(await tempDir(), "rg");
    const calls: string[] = [];
    let installs = 0;
    const sudo = async (argv: readonly string[]) => {
      calls.push(argv.join(" "));
      if (argv[0] !== "apt-get" || argv[1] !== "install") return true;
      installs += 1;
      // The first install fails as it does on stale package lists; the second puts the binary in place.
      if (installs === 1) return false;
      await executable(rg);
      return true;
    };
    const { log, warnings, info } = recorder();
    expect(await setUpActionRipgrep({ githubHosted: true, log, ripgrep: rg, sudo })).toBe(true);
    expect(calls).toEqual(["true", "apt-get install -y ripgrep", "apt-get update", "apt-get install -y ripgrep"]);
    expect(warnings).toEqual([]);
    expect(info.at(-1)).toBe(`tackle: ripgrep installed (${rg})`);
  });

  it("without passwordless sudo: no apt-get, and one warning saying what to do", async () => {
    const rg = path.join(await tempDir(), "rg");
    const calls: string[] = [];
    const { log, warnings } = recorder();
    const sudo = async (argv: readonly string[]) => {
      calls.push(argv.join(" "));
      return false;
    };
    expect(await setUpActionRipgrep({ githubHosted: true, log, ripgrep: rg, sudo })).toBe(false);
    expect(calls).toEqual(["true"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^ripgrep \(`rg`\) is not installed on this runner and could not be installed, so the agent's Grep and Glob tools cannot search/,
    );
    expect(warnings[0]).toContain("`sudo apt-get install -y ripgrep`");
  });

  it("on another runner: installs nothing, warns once", async () => {
    const rg = path.join(await tempDir(), "rg");
    const { log, warnings } = recorder();
    const sudo = async () => {
      throw new Error("no sudo expected");
    };
    expect(await setUpActionRipgrep({ githubHosted: false, log, ripgrep: rg, sudo })).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^ripgrep \(`rg`\) is not installed on this runner, so/);
  });
});
