/**
 * The attacks of issue 4's test list that need a whole job: a real repository served by the fake
 * GitHub over smart HTTP, a real repo cache under a TACKLE_HOME that also holds another job's
 * checkout, transcripts and the App's private key, the job's secrets planted in this process's
 * environment, and the agent's own Read, Write and Bash tools. Each test asserts that the attack
 * failed and that no planted canary came back.
 *
 * Tools are called directly, not through the registry: the registry masks the job's secrets in
 * results, which would hide a leak from these assertions.
 *
 * Nothing here is skipped: without working bubblewrap and slirp4netns these tests fail.
 */
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bashTool } from "../../../src/agent/tools/bash.js";
import { readTool } from "../../../src/agent/tools/read.js";
import type { ToolContext } from "../../../src/agent/tools/tool.js";
import { writeTool } from "../../../src/agent/tools/write.js";
import { isTackleError } from "../../../src/errors/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createRepoCache, detectSandbox, type Workspace } from "../../../src/workspace/index.js";
import { startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";
import { git, processesMatching, removeDir, startCanaryServer, tempDir } from "./helpers.js";

const support = await detectSandbox();
const canary = (label: string): string => `${label}-canary-${randomBytes(6).toString("hex")}`;

/** The job's secrets, as the server and worker hold them in their environment. */
const SECRETS = {
  ANTHROPIC_API_KEY: `sk-ant-api03-${canary("model-key")}`,
  WEBHOOK_SECRET: canary("webhook-secret"),
  PRIVATE_KEY: `-----BEGIN RSA PRIVATE KEY-----\n${canary("app-key-inline")}\n-----END RSA PRIVATE KEY-----`,
};
const HOST_MARKER = canary("host-file");
const KEY_FILE_MARKER = canary("app-key-file");
const TRANSCRIPT_MARKER = canary("transcript");
const OTHER_JOB_MARKER = canary("other-job");

function fail(description: string): never {
  throw new Error(description);
}

describe("a job's sandbox under attack (real bubblewrap, real git, fake GitHub)", () => {
  let base: string;
  let home: string;
  let hostSecret: string;
  let keyFile: string;
  let transcriptFile: string;
  let mirror: string;
  let fake: FakeGitHub;
  let token: string;
  let jobA: Workspace;
  let jobB: Workspace;
  let ctx: ToolContext;
  const savedEnv: Record<string, string | undefined> = {};

  /** Every value that must never come back out of the sandbox or a tool. */
  const canaries = (): string[] => [
    ...Object.values(SECRETS),
    SECRETS.PRIVATE_KEY.split("\n")[1] ?? fail("no key body"),
    token,
    Buffer.from(`x-access-token:${token}`).toString("base64"),
    HOST_MARKER,
    KEY_FILE_MARKER,
    TRANSCRIPT_MARKER,
    OTHER_JOB_MARKER,
  ];
  const expectNoCanary = (text: string): void => {
    for (const value of canaries()) expect(text, `leaked ${value.slice(0, 24)}…`).not.toContain(value);
  };
  const bash = async (command: string, timeout = 30_000): Promise<string> => (await bashTool.execute({ command, timeout }, ctx)).content;

  beforeAll(async () => {
    base = tempDir("job-attacks");
    home = path.join(base, "tackle-home");
    mkdirSync(path.join(home, "transcripts"), { recursive: true });
    // Host files the job must not reach: one outside TACKLE_HOME, the App's key and another job's transcript inside it.
    // World-readable on purpose, so only their invisibility can keep them from the sandbox user.
    mkdirSync(path.join(base, "host-only"));
    hostSecret = path.join(base, "host-only", "secret.txt");
    writeFileSync(hostSecret, `${HOST_MARKER}\n`, { mode: 0o644 });
    keyFile = path.join(home, "app.private-key.pem");
    writeFileSync(keyFile, `-----BEGIN RSA PRIVATE KEY-----\n${KEY_FILE_MARKER}\n-----END RSA PRIVATE KEY-----\n`, { mode: 0o644 });
    transcriptFile = path.join(home, "transcripts", "job-b.jsonl");
    writeFileSync(transcriptFile, `{"secret":"${TRANSCRIPT_MARKER}"}\n`, { mode: 0o644 });
    chmodSync(base, 0o755);

    fake = await startFakeGitHub();
    // The repository itself is hostile: its symlinks point at the host's files.
    const repo = await fake.addRepo({ owner: "acme", name: "widgets", files: { "README.md": "# widgets\n", "src/app.ts": "export const x = 1;\n" } });
    token = fake.mintToken({ owner: "acme" });
    for (const [key, value] of Object.entries({ ...SECRETS, GITHUB_TOKEN: token, PRIVATE_KEY_PATH: keyFile, TACKLE_HOME: home })) {
      savedEnv[key] = process.env[key];
      process.env[key] = value;
    }
    const scratch = path.join(base, "scratch");
    await git(base, ["clone", "--quiet", repo.bareRepoPath, scratch]);
    const links: Record<string, string> = {
      "passwd-link": "/etc/passwd",
      "host-secret-link": hostSecret,
      "key-link": keyFile,
      "transcripts-link": path.join(home, "transcripts"),
      "other-job-link": "../job-b",
      "environ-link": "/proc/1/environ",
    };
    for (const [name, target] of Object.entries(links)) symlinkSync(target, path.join(scratch, name));
    await git(scratch, ["add", "-A"]);
    await git(scratch, ["-c", "user.name=Mallory", "-c", "user.email=m@example.com", "commit", "--quiet", "-m", "links"]);
    await git(scratch, ["push", "--quiet", "origin", "HEAD:main"]);

    const cache = createRepoCache({ home });
    const common = { remoteUrl: repo.cloneUrl, repoKey: "ghe.test/acme/widgets", token, startFrom: "base" as const, sandbox: "bwrap" as const };
    jobA = await cache.prepare({ ...common, jobId: "job-a", branch: "tackle/issue-5" });
    jobB = await cache.prepare({ ...common, jobId: "job-b", branch: "tackle/issue-6" });
    await jobB.fs.writeFile("notes.txt", `${OTHER_JOB_MARKER}\n`);
    mirror = path.join(home, "mirrors", "ghe.test", "acme", "widgets.git");

    ctx = {
      fs: jobA.fs,
      exec: jobA.exec,
      search: jobA.search,
      git: jobA.git,
      issue: { get: () => fail("not used"), report: () => fail("not used") },
      pulls: { createOrUpdate: () => fail("not used") },
      state: { todos: [], notes: [] },
      baseBranch: jobA.baseBranch,
      signal: new AbortController().signal,
      logger: silentLogger,
    };
  });

  afterAll(async () => {
    for (const [key, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    await jobA?.dispose();
    await jobB?.dispose();
    await fake?.close();
    if (base) removeDir(base);
  });

  it("runs with bubblewrap and a slirp4netns network for setup steps (these tests are never skipped)", () => {
    expect(support.available, support.detail).toBe(true);
    expect(support.network, `setup steps need slirp4netns: ${support.detail}`).toBe(true);
    expect(jobA.sandboxed).toBe(true);
    // The hostile links really are in the checkout, from the repository.
    expect(readFileSync(path.join(jobA.root, "README.md"), "utf8")).toBe("# widgets\n");
    expect(existsSync(path.join(jobB.root, "notes.txt"))).toBe(true);
  });

  it("Read refuses repository symlinks, ../ and absolute paths that leave the checkout, /proc and .git", async () => {
    const jobBNotes = path.join(jobB.root, "notes.txt");
    const attempts = [
      "passwd-link",
      "host-secret-link",
      "key-link",
      "transcripts-link/job-b.jsonl",
      "other-job-link/notes.txt",
      "environ-link",
      "../job-b/notes.txt",
      "src/../../job-b/notes.txt",
      jobBNotes,
      "/etc/passwd",
      hostSecret,
      keyFile,
      transcriptFile,
      path.join(mirror, "config"),
      "/proc/self/environ",
      "/proc/1/environ",
      ".git/config",
    ];
    for (const file_path of attempts) {
      const error = await readTool.execute({ file_path }, ctx).then(
        (result) => fail(`Read ${file_path} answered: ${result.content.slice(0, 200)}`),
        (e: unknown) => e,
      );
      expect(isTackleError(error, "path_outside_worktree"), `Read ${file_path}: ${String(error)}`).toBe(true);
      expectNoCanary((error as Error).message);
    }
    // The guard is not refusing everything: a file of the checkout reads.
    expect((await readTool.execute({ file_path: "README.md" }, ctx)).content).toContain("# widgets");
  });

  it("Write refuses .git/hooks/pre-commit, .git/config and paths into another job or the key, changing nothing", async () => {
    const configPath = path.join(jobA.root, ".git", "config");
    const digest = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");
    const before = { config: digest(configPath), key: digest(keyFile), notes: digest(path.join(jobB.root, "notes.txt")) };
    for (const file_path of [".git/hooks/pre-commit", ".git/config", "../job-b/notes.txt", "other-job-link/notes.txt", "key-link", keyFile]) {
      const error = await writeTool.execute({ file_path, content: "#!/bin/sh\ntouch /tmp/pwned\n" }, ctx).then(
        () => fail(`Write ${file_path} succeeded`),
        (e: unknown) => e,
      );
      expect(isTackleError(error, "path_outside_worktree"), `Write ${file_path}: ${String(error)}`).toBe(true);
    }
    expect(existsSync(path.join(jobA.root, ".git", "hooks", "pre-commit"))).toBe(false);
    expect({ config: digest(configPath), key: digest(keyFile), notes: digest(path.join(jobB.root, "notes.txt")) }).toEqual(before);
  });

  it("Bash cat through the same symlinks and paths sees the sandbox's own files, never the host's", async () => {
    const hostPasswd = readFileSync("/etc/passwd", "utf8");
    const hostRoot = hostPasswd.split("\n").find((line) => line.startsWith("root:")) ?? fail("host has no root entry");
    const output = await bash(
      [
        "echo '--- passwd'; cat passwd-link",
        "echo '--- links'; cat host-secret-link key-link other-job-link/notes.txt environ-link",
        "ls transcripts-link/ && echo TRANSCRIPTS-LISTED; cat transcripts-link/job-b.jsonl",
        `echo '--- paths'; cat ../job-b/notes.txt ${path.join(jobB.root, "notes.txt")} ${hostSecret} ${keyFile} ${transcriptFile}`,
        "echo '--- parent'; ls -a ..",
        "echo end",
      ].join("; "),
    );
    expect(output).toContain("end");
    const passwd = output.slice(output.indexOf("--- passwd"), output.indexOf("--- links"));
    // The sandbox's /etc/passwd is generated: root has no login shell there, and the host's other accounts are absent.
    expect(passwd).toMatch(/^root:x:0:0:root:\/root:\/usr\/sbin\/nologin$/m);
    expect(passwd).toContain("tackle:x:");
    if (hostRoot !== "root:x:0:0:root:/root:/usr/sbin/nologin") expect(passwd).not.toContain(hostRoot);
    for (const line of hostPasswd.split("\n").filter((l) => l && !/^(root|nobody):/.test(l))) expect(passwd).not.toContain(line);
    expect(output).not.toContain("TRANSCRIPTS-LISTED");
    expectNoCanary(output);
    const parent = output
      .slice(output.indexOf("--- parent") + "--- parent".length, output.indexOf("end"))
      .split(/\s+/)
      .filter(Boolean);
    expect(parent).toContain("job-a");
    expect(parent).not.toContain("job-b");
  });

  it("another job's checkout, the transcripts and the private key file are not there at all", async () => {
    const output = await bash(
      [
        `echo '--- home'; ls -a ${home}`,
        `echo '--- checkouts'; ls -a ${path.join(home, "checkouts")}`,
        "echo '--- probes'",
        `test -e ${path.join(home, "transcripts")} && echo TRANSCRIPTS-EXIST`,
        `test -e ${keyFile} && echo KEY-EXISTS`,
        `test -e ${jobB.root} && echo JOB-B-EXISTS`,
        `test -e ${path.join(home, "checkouts", "job-b.json")} && echo JOB-B-META-EXISTS`,
        `test -e ${path.join(base, "host-only")} && echo HOST-DIR-EXISTS`,
        "ls /root && echo ROOT-LISTED",
        "grep -rsF -e canary /home /tmp /var/tmp . && echo CANARY-FOUND",
        "echo end",
      ].join("; "),
    );
    expect(output).toContain("end");
    for (const marker of ["TRANSCRIPTS-EXIST", "KEY-EXISTS", "JOB-B-EXISTS", "JOB-B-META-EXISTS", "HOST-DIR-EXISTS", "ROOT-LISTED", "CANARY-FOUND"]) {
      expect(output).not.toContain(marker);
    }
    // TACKLE_HOME shows only the mount points of this job (its checkout, the mirror it borrows from).
    const listing = (header: string, next: string): string[] =>
      output
        .slice(output.indexOf(header) + header.length, output.indexOf(next))
        .split(/\s+/)
        .filter((name) => name && name !== "." && name !== "..");
    expect(listing("--- home", "--- checkouts").sort()).toEqual(["checkouts", "mirrors"]);
    expect(listing("--- checkouts", "--- probes")).toEqual(["job-a"]);
    expectNoCanary(output);
  });

  it("env, /proc/self/environ and /proc/1/environ show none of the job's secrets, nor does git's config", async () => {
    // Markers are split with "" so the command line itself (shown by /proc/*/cmdline) does not contain them.
    const output = await bash(
      [
        "echo '--- env'; env",
        "echo '--- self'; tr '\\0' '\\n' < /proc/self/environ",
        "echo '--- pid1'; tr '\\0' '\\n' < /proc/1/environ",
        "echo '--- all'; for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do tr '\\0' '\\n' < $f; done",
        "echo '--- git'; git config --list --show-origin",
        `printf 'protocol=http\\nhost=${new URL(fake.url).host}\\n\\n' | git credential fill && echo CREDENTIAL""-FILLED`,
        "echo end",
      ].join("; "),
    );
    expect(output).toContain("end");
    expect(output).toMatch(/--- self[\s\S]*HOME=\/home\/tackle[\s\S]*--- pid1/);
    expect(output).not.toContain("CREDENTIAL-FILLED");
    for (const name of ["ANTHROPIC_API_KEY", "WEBHOOK_SECRET", "PRIVATE_KEY", "GITHUB_TOKEN", "TACKLE_HOME", "extraheader", "Authorization"]) {
      expect(output).not.toContain(name);
    }
    expectNoCanary(output);
  });

  it("git push from Bash never reaches the fake GitHub and finds no credential; the host's push does", async () => {
    const mainBefore = await fake.branchSha("acme", "widgets", "main");
    fake.clearLog();
    const gitUrl = new URL(fake.gitUrl("acme", "widgets"));
    const output = await bash(
      [
        "echo change >> README.md && git commit -qam 'agent commit' && echo COMMITTED",
        "git push origin HEAD:refs/heads/tackle/issue-5; echo push-origin=$?",
        `git push ${gitUrl.protocol}//x-access-token:guessed@${gitUrl.host}${gitUrl.pathname} HEAD:refs/heads/main; echo push-main=$?`,
        "git ls-remote origin; echo ls-remote=$?",
        `curl -sS -m 3 ${fake.apiUrl}/repos/acme/widgets && echo API-REACHED`,
        "echo end",
      ].join("; "),
      60_000,
    );
    expect(output).toContain("COMMITTED");
    for (const step of ["push-origin", "push-main", "ls-remote"]) expect(output).toMatch(new RegExp(`${step}=(?!0\\b)\\d+`));
    expect(output).not.toContain("API-REACHED");
    expect(fake.requests()).toEqual([]);
    expect(await fake.branchSha("acme", "widgets", "tackle/issue-5")).toBeUndefined();
    expect(await fake.branchSha("acme", "widgets", "main")).toBe(mainBefore);

    // The same server is reachable from the host, with the one-shot credential, which is then stored nowhere.
    const pushed = await jobA.push({ verify: () => ({ action: "publish" }), token });
    expect(pushed.pushed).toBe(true);
    expect(await fake.branchSha("acme", "widgets", "tackle/issue-5")).toBe(pushed.sha);
    expect(fake.requests({ kind: "git", method: "POST" }).some((entry) => entry.token === token)).toBe(true);
    const stored = await execa("grep", ["-rlsF", "-e", token, "-e", Buffer.from(`x-access-token:${token}`).toString("base64"), home], { reject: false });
    expect(stored.stdout).toBe("");
  });

  it("a setup step (network: true) gets a slirp4netns NAT with a default route, but not the host's loopback nor any secret", async () => {
    const canaryServer = await startCanaryServer();
    fake.clearLog();
    const seen: string[] = [];
    const watch = setInterval(() => seen.push(...processesMatching("slirp4netns")), 100);
    try {
      const result = await jobA.exec.run(
        [
          "echo '--- dev'; cat /proc/net/dev",
          "echo '--- route'; cat /proc/net/route",
          "echo '--- resolv'; cat /etc/resolv.conf",
          `curl -sS -m 3 http://127.0.0.1:${canaryServer.port}/ && echo REACHED-LOOPBACK`,
          `curl -sS -m 3 ${fake.apiUrl}/repos/acme/widgets && echo REACHED-FAKE`,
          `curl -sS -m 3 http://10.0.2.2:${canaryServer.port}/ && echo REACHED-HOST-VIA-GATEWAY`,
          "env",
          "sleep 1",
          "echo end",
        ].join("; "),
        { timeoutMs: 60_000, network: true },
      );
      const output = result.output;
      expect(output).toContain("end");
      // A non-loopback interface, and the default route through slirp4netns' gateway 10.0.2.2.
      expect(output).toMatch(/^\s*tap0:/m);
      expect(output).toMatch(/^tap0\s+00000000\s+0202000A\s/m);
      expect(output).toContain("nameserver 10.0.2.3");
      for (const marker of ["REACHED-LOOPBACK", "REACHED-FAKE", "REACHED-HOST-VIA-GATEWAY", "host secret page"]) expect(output).not.toContain(marker);
      expect(canaryServer.hits).toBe(0);
      expect(fake.requests()).toEqual([]);
      expectNoCanary(output);
      expect(seen.some((line) => line.includes("--disable-host-loopback"))).toBe(true);
    } finally {
      clearInterval(watch);
      await canaryServer.close();
    }
  });
});
