// The package as npm installs it: `npm pack` of this repository (after `npm test`'s build), installed
// into an empty directory the way a user does, with npm resolving and fetching the dependencies over
// HTTP from a registry on 127.0.0.1 that serves this repository's own installed packages. Then the
// installed bin runs: `npx tackle --help`, `--version`, `doctor`, and the README's demo run.
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanGitEnv, startFakeNpmRegistry } from "../../fakes/index.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../../..");
const manifest = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  engines: { node: string };
};
const platformRipgrep = `@vscode/ripgrep-${process.platform}-${process.arch}`;

const cleanups: Array<() => Promise<void>> = [];
let work = "";
let tarball = "";
let packedFiles: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** What a user's shell gives npm and the bin: PATH and HOME; none of `npm test`'s npm_config_* settings. */
function userEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, ...extra };
}

async function exec(file: string, args: string[], options: { cwd: string; env: Record<string, string> }) {
  try {
    const { stdout, stderr } = await run(file, args, { ...options, timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === "number" ? e.code : -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/** Bare package imports left in the built CLI: what the bundle loads from node_modules at run time. */
async function externalImports(): Promise<Set<string>> {
  const files = [path.join(root, "dist/cli.js")];
  for (const name of await readdir(path.join(root, "dist/chunks"))) files.push(path.join(root, "dist/chunks", name));
  const found = new Set<string>();
  for (const file of files) {
    const text = await readFile(file, "utf8");
    // esbuild writes an import it leaves external as a statement at the start of a line, double-quoted.
    for (const match of text.matchAll(/^import\s[^;]*?\bfrom\s*"([^"]+)";|^import\s*"([^"]+)";|\bimport\(\s*"([^"]+)"\s*\)/gm)) {
      const specifier = (match[1] ?? match[2] ?? match[3])!;
      // Node's own modules, with or without `node:` (a bundled dependency may write `import "crypto"`).
      if (specifier.startsWith(".") || specifier.startsWith("node:") || isBuiltin(specifier)) continue;
      found.add(specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
    }
  }
  return found;
}

beforeAll(async () => {
  // `npm test` builds first; fail loudly rather than pack a missing bundle.
  await readFile(path.join(root, "dist/cli.js"));
  work = await tempDir("tackle-pack-");
  // --ignore-scripts: the bundle was just built; prepack would rebuild dist/ under the other tests' feet.
  const { stdout } = await run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", work], {
    cwd: root,
    env: userEnv(work),
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout) as Array<{ filename: string; files: Array<{ path: string }> }>;
  tarball = path.join(work, packed!.filename);
  packedFiles = packed!.files.map((f) => f.path).sort();
}, 120_000);

afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe("the npm package", () => {
  it("ships the CLI bundle with its chunks, LICENSE, README, app.yml and docs; no sources, tests or Action bundle", async () => {
    const chunks = (await readdir(path.join(root, "dist/chunks"))).map((name) => `dist/chunks/${name}`);
    expect(chunks.length).toBeGreaterThan(0);
    for (const file of ["package.json", "LICENSE", "README.md", "app.yml", "dist/cli.js", "docs/security-model.md", ...chunks]) {
      expect(packedFiles, file).toContain(file);
    }
    const unexpected = packedFiles.filter(
      (file) => /^(src|test|bench|scripts|examples|node_modules|coverage)\//.test(file) || file === "dist/action.js" || file === "action.yml",
    );
    expect(unexpected).toEqual([]);
    // The licence file says what package.json says.
    const license = await readFile(path.join(root, "LICENSE"), "utf8");
    expect(manifest).toMatchObject({ license: "MIT" });
    expect(license).toMatch(/^MIT License\n/);
    expect(license).toContain("Permission is hereby granted, free of charge");
  });

  it("declares as dependencies exactly the packages the bundle leaves external", async () => {
    const external = [...(await externalImports())].sort();
    expect(external).toEqual(Object.keys(manifest.dependencies).sort());
    // package.json states the Node versions CI runs the built CLI under (.ci/run: 22 and 24).
    expect(manifest.engines.node).toBe(">=22");
  });

  it("installs into an empty directory through a registry on 127.0.0.1, holding only the bundle and ripgrep; npx tackle runs", async () => {
    const registry = await startFakeNpmRegistry({ root, workDir: await tempDir("tackle-registry-") });
    cleanups.push(() => registry.close());
    const home = await tempDir("tackle-user-home-");
    const project = await tempDir("tackle-install-");
    const npmrc = path.join(home, "empty-npmrc");
    await writeFile(npmrc, "");
    const install = await exec(
      "npm",
      [
        "install",
        tarball,
        `--registry=${registry.url}`,
        `--cache=${path.join(home, "npm-cache")}`,
        `--userconfig=${npmrc}`,
        "--no-audit",
        "--no-fund",
        "--no-update-notifier",
      ],
      { cwd: project, env: userEnv(home) },
    );
    expect(install.stderr).not.toMatch(/npm error/);
    expect(install.code).toBe(0);
    // Every request was one the registry could answer; the only tarballs fetched were ripgrep's.
    expect(registry.requests.filter((r) => !r.endsWith(" 200"))).toEqual([]);
    const fetched = registry.requests.filter((r) => r.includes(".tgz")).map((r) => r.split(" ")[1]);
    expect(fetched.sort()).toEqual([`/@vscode/ripgrep/-/ripgrep-1.18.0.tgz`, `/${platformRipgrep}/-/${platformRipgrep.split("/")[1]}-1.18.0.tgz`].sort());

    // The install holds Tackle, the ripgrep wrapper and this platform's ripgrep binary, nothing else.
    const installed = JSON.parse(await readFile(path.join(project, "node_modules/.package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    expect(Object.keys(installed.packages).sort()).toEqual(
      ["node_modules/@vscode/ripgrep", `node_modules/${platformRipgrep}`, `node_modules/${manifest.name}`].sort(),
    );
    expect(installed.packages[`node_modules/${manifest.name}`]!.version).toBe(manifest.version);

    // npx finds the installed bin (offline: nothing may be fetched to run it).
    const help = await exec("npx", ["--offline", "tackle", "--help"], { cwd: project, env: userEnv(home) });
    expect(help.code).toBe(0);
    expect(help.stdout.split("\n")[0]).toBe(`tackle ${manifest.version} — an AI issue-worker for GitHub`);
    expect(help.stdout).toContain("tackle run --local PATH");
    const version = await exec("npx", ["--offline", "tackle", "--version"], { cwd: project, env: userEnv(home) });
    expect(version).toMatchObject({ code: 0, stdout: `${manifest.version}\n` });

    // doctor loads @vscode/ripgrep from the install and runs the binary it resolves there.
    const bin = path.join(project, "node_modules/.bin/tackle");
    const doctor = await exec(bin, ["doctor"], { cwd: project, env: userEnv(home) });
    expect(doctor.stderr).not.toMatch(/tackle: /);
    expect(doctor.stdout).toMatch(/^ok {3}ripgrep: ripgrep \d+\.\d+/m);

    // The README's demo through the installed bin: the agent, its tools and git, with the recorded session.
    const repo = path.join(home, "demo-repo");
    await cp(path.join(root, "examples/demo-repo"), repo, { recursive: true });
    const gitEnv = cleanGitEnv(home, {
      GIT_AUTHOR_NAME: "U",
      GIT_AUTHOR_EMAIL: "u@example.com",
      GIT_COMMITTER_NAME: "U",
      GIT_COMMITTER_EMAIL: "u@example.com",
    });
    for (const args of [
      ["init", "-q", "-b", "main"],
      ["add", "-A"],
      ["commit", "-q", "-m", "initial"],
    ])
      await run("git", args, { cwd: repo, env: gitEnv });
    const demo = await exec(
      bin,
      ["run", "--local", repo, "--task-file", path.join(root, "examples/demo-task.md"), "--replay", path.join(root, "examples/demo-session.jsonl")],
      { cwd: project, env: userEnv(home, { TACKLE_HOME: path.join(home, ".tackle") }) },
    );
    expect(demo.stderr).not.toMatch(/tackle: (?!warning)/);
    expect(demo.code).toBe(0);
    const patchLine = demo.stdout.split("\n").find((line) => line.startsWith("patch: "));
    expect(patchLine).toBeDefined();
    expect(await readFile(patchLine!.slice("patch: ".length).trim(), "utf8")).toContain("+  return (celsius * 9) / 5 + 32;");
  });

  it("--version is package.json's version, written into the bundle by the build", async () => {
    // The same sources built beside a package.json with another version: the bin follows it.
    const copy = await tempDir("tackle-version-build-");
    await cp(path.join(root, "src"), path.join(copy, "src"), { recursive: true });
    await cp(path.join(root, "scripts"), path.join(copy, "scripts"), { recursive: true });
    await symlink(path.join(root, "node_modules"), path.join(copy, "node_modules"));
    await writeFile(path.join(copy, "package.json"), JSON.stringify({ ...manifest, version: "9.8.7-rc.1" }));
    await mkdir(path.join(copy, "out"));
    await run(process.execPath, [path.join(copy, "scripts/build.mjs"), "--outdir", path.join(copy, "out")], { cwd: copy, timeout: 120_000 });
    const { stdout } = await run(process.execPath, [path.join(copy, "out/cli.js"), "--version"], { env: userEnv(copy) });
    expect(stdout).toBe("9.8.7-rc.1\n");
    // And the repository's own build answers with the repository's version.
    const own = await run(process.execPath, [path.join(root, "dist/cli.js"), "--version"], { env: userEnv(copy) });
    expect(own.stdout).toBe(`${manifest.version}\n`);
  });
});
