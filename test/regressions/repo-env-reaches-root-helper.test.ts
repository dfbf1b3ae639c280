/**
 * Broken (#20, case 1): with TACKLE_SANDBOX=off and Tackle as root, a stdio MCP server's `env` from
 * `.github/tackle.yml` was handed to `spawn("setpriv", …, {env})`: `LD_PRELOAD` was loaded by setpriv
 * while it still ran as uid 0, and `PATH: "."` made a committed `./setpriv` run as root instead.
 *
 * Now the repo config refuses loader and shell controls, naming the key; and below it, whatever
 * environment a command is given reaches only the command: every helper in front of it (setpriv,
 * env, bubblewrap, unshare, nice…) starts by absolute path with a fixed environment, and the
 * sandbox's own variables (PATH, HOME…) cannot be overridden. The loader's own debug output
 * (`LD_DEBUG=files`: "needed by <program>") shows which programs the variables reached.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSandboxExec, detectSandbox, type Sandbox, type SandboxMode } from "../../src/workspace/index.js";
import { removeDir, tempDir } from "../integration/workspace/helpers.js";
import { mcpServerEnvConfig } from "../unit/config/helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

/** Programs that run before the command, with more rights than it (as root: uid 0 until setpriv drops). */
const HELPERS = ["setpriv", "env", "nice", "unshare", "nsenter", "bwrap", "sh"];

/** The programs whose loader read the variables, from LD_DEBUG=files output. */
function loadedBy(output: string): Set<string> {
  return new Set([...output.matchAll(/needed by (\S+) \[0\]/g)].map((match) => path.basename(match[1] ?? "")));
}

const LOADER_ENV = { LD_DEBUG: "files", LD_PRELOAD: "/nonexistent/tackle-evil.so" };

describe.each(modes)("a command's environment never reaches the helpers that start it (%s)", (mode) => {
  let root: string;
  let sandbox: Sandbox;
  beforeEach(() => {
    root = tempDir(`root-helper-env-${mode}`, { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode, jobNamespace: mode === "bwrap" });
  });
  afterEach(async () => {
    await sandbox.dispose();
    removeDir(root);
  });

  it("LD_PRELOAD and LD_DEBUG given to a command are read by the command's loader only", async () => {
    const result = await sandbox.run("echo ran", { timeoutMs: 30_000, env: LOADER_ENV });
    expect(result.output).toContain("ran");
    const programs = loadedBy(result.output);
    // Not vacuous: the variables did reach the command itself.
    expect(programs.has("bash"), result.output.slice(0, 2000)).toBe(true);
    for (const helper of HELPERS) expect(programs.has(helper), `${helper} loaded with the command's LD_*`).toBe(false);
  });

  it("the same for a long-running process started like a stdio MCP server", async () => {
    let output = "";
    const started = await sandbox.start!(["bash", "-c", "echo started"], { env: LOADER_ENV, onStdout: (chunk) => (output += chunk.toString("utf8")) });
    await started.exited;
    expect(output).toContain("started");
    const programs = loadedBy(output);
    expect(programs.has("bash"), output.slice(0, 2000)).toBe(true);
    for (const helper of HELPERS) expect(programs.has(helper), `${helper} loaded with the command's LD_*`).toBe(false);
  });

  it("a long-running process's environment is not in any host process's command line (a stdio MCP server's secret)", async () => {
    const secret = `tackle-secret-${process.pid}-${Date.now()}`;
    let output = "";
    let ready: () => void = () => undefined;
    const isReady = new Promise<void>((resolve) => (ready = resolve));
    const started = await sandbox.start!(["bash", "-c", 'echo "ready $SERVER_TOKEN" | wc -c; exec cat'], {
      env: { SERVER_TOKEN: secret },
      stdin: true,
      onStdout: (chunk) => {
        output += chunk.toString("utf8");
        if (output.includes("\n")) ready();
      },
    });
    await isReady;
    const showing = readdirSync("/proc")
      .filter((entry) => /^\d+$/.test(entry))
      .filter((pid) => {
        try {
          return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(secret);
        } catch {
          return false;
        }
      });
    await started.stop();
    expect(output.trim()).toBe(String(`ready ${secret}\n`.length));
    expect(showing).toEqual([]);
  });

  if (mode === "bwrap" && support.network) {
    it("the same with network: true (the holder, slirp4netns, nsenter and ip in front of the command)", async () => {
      const result = await sandbox.run("echo ran", { timeoutMs: 60_000, env: LOADER_ENV, network: true });
      expect(result.output).toContain("ran");
      const programs = loadedBy(result.output);
      expect(programs.has("bash"), result.output.slice(0, 2000)).toBe(true);
      for (const helper of [...HELPERS, "slirp4netns", "ip"]) expect(programs.has(helper), `${helper} loaded with the command's LD_*`).toBe(false);
    });
  }

  it('PATH: "." with a committed ./setpriv (and ./env, ./nice, ./bwrap): refused, and none of them runs', async () => {
    const marker = path.join(root, "hijacked");
    for (const name of ["setpriv", "env", "nice", "bwrap", "unshare", "bash"]) {
      await writeFile(path.join(root, name), `#!/bin/sh\nid -u > '${marker}'\n`, { mode: 0o755 });
    }
    await expect(sandbox.run("echo ran", { timeoutMs: 30_000, env: { PATH: "." } })).rejects.toThrow(/PATH is set by the sandbox itself/);
    for (const fixed of ["HOME", "TMPDIR", "USER"]) {
      await expect(sandbox.run("echo ran", { timeoutMs: 30_000, env: { [fixed]: root } })).rejects.toThrow(`${fixed} is set by the sandbox itself`);
    }
    const ran = await sandbox.run('echo "$PATH"', { timeoutMs: 30_000 });
    expect(ran.output.trim()).toBe("/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("a repository's env for its MCP servers", () => {
  const config = mcpServerEnvConfig;

  it.each([
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "ld_preload",
    "PATH",
    "BASH_ENV",
    "ENV",
    "GCONV_PATH",
    "NODE_OPTIONS",
    "PYTHONPATH",
    "PYTHONSTARTUP",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "GIT_SSH_COMMAND",
    "GIT_CONFIG_GLOBAL",
    "HOME",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "IFS",
    "MALLOC_CHECK_",
    "LOCPATH",
    "HOSTALIASES",
    "RES_OPTIONS",
    "TMPDIR",
    "GLIBC_TUNABLES",
    "JAVA_TOOL_OPTIONS",
    "TACKLE_HOOKS_DIR",
  ])("%s is a config error naming the key", (name) => {
    const parsed = config({ [name]: "./evil.so", API_URL: "https://example.com" });
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems).toHaveLength(1);
    expect(parsed.problems[0]).toMatch(new RegExp(`^\`mcp_servers\\.tool\\.env\\.${name}\`: .*cannot be set by the repository.* \\(line 5\\)$`));
  });

  it("a name that is not a plain variable name is a config error too; plain names pass", () => {
    const bad = config({ "BASH_FUNC_x%%": "() { id; }" });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems[0]).toMatch(/^`mcp_servers\.tool\.env\.BASH_FUNC_x%%`: a variable name is/);
    const good = config({ API_URL: "https://example.com", DEBUG: "1", my_setting: "x", LANGUAGE_MODEL: "m" });
    expect(good.ok).toBe(true);
  });
});
