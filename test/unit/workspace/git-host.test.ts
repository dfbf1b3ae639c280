import { afterEach, describe, expect, it } from "vitest";
import {
  assertPushAllowed,
  basicAuthHeader,
  createHostGit,
  hardeningArgs,
  hostGitEnv,
  isPushAllowed,
  parseRemoteUrl,
  redactToken,
  validateBranchName,
} from "../../../src/workspace/git-host.js";
import { parseNumstat, parseStatus } from "../../../src/workspace/git-port.js";
import { checkoutName } from "../../../src/workspace/checkout-pool.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

describe("host git hygiene", () => {
  afterEach(() => {
    delete process.env.GIT_DIR;
    delete process.env.GIT_SSH_COMMAND;
  });

  it("builds the environment from nothing: no inherited GIT_*, no system or global config", () => {
    process.env.GIT_DIR = "/somewhere/else";
    process.env.GIT_SSH_COMMAND = "evil";
    const env = hostGitEnv("/h/git-home");
    expect(env.GIT_DIR).toBeUndefined();
    expect(env.GIT_SSH_COMMAND).toBeUndefined();
    expect(env).toMatchObject({ HOME: "/h/git-home", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_TERMINAL_PROMPT: "0" });
    expect(Object.keys(env).filter((key) => !/^(PATH|HOME|XDG_CONFIG_HOME|LANG|LC_ALL|GIT_[A-Z_]+|SSH_ASKPASS)$/.test(key))).toEqual([]);
  });

  it("passes a credential only as GIT_CONFIG_* for http.extraHeader", () => {
    const env = hostGitEnv("/h", { token: "ghs_abc" });
    expect(env.GIT_CONFIG_COUNT).toBe("1");
    expect(env.GIT_CONFIG_KEY_0).toBe("http.extraHeader");
    expect(env.GIT_CONFIG_VALUE_0).toBe(`Authorization: Basic ${Buffer.from("x-access-token:ghs_abc").toString("base64")}`);
    expect(basicAuthHeader("ghs_abc")).toBe(env.GIT_CONFIG_VALUE_0);
    expect(hardeningArgs().join(" ")).not.toContain("ghs_abc");
  });

  it("pins the repository so a planted commondir or GIT_DIR cannot redirect it", () => {
    const env = hostGitEnv("/h", { repo: { gitDir: "/w/.git", workTree: "/w" } });
    expect(env).toMatchObject({ GIT_DIR: "/w/.git", GIT_COMMON_DIR: "/w/.git", GIT_WORK_TREE: "/w" });
  });

  it("switches hooks and fsmonitor off on every command", () => {
    const args = hardeningArgs().join(" ");
    expect(args).toContain("core.hooksPath=/dev/null");
    expect(args).toContain("core.fsmonitor=false");
    expect(args).toContain("credential.helper=");
  });

  it("redacts tokens and their header form", () => {
    const header = basicAuthHeader("tok123");
    expect(redactToken(`failed tok123 and ${header}`, "tok123")).toBe("failed *** and Authorization: Basic ***");
  });

  it("allows only tackle/ branches or named PR heads to be pushed", () => {
    expect(isPushAllowed("tackle/issue-4")).toBe(true);
    expect(isPushAllowed("tackle/")).toBe(false);
    expect(isPushAllowed("main")).toBe(false);
    expect(isPushAllowed("feature/x", ["feature/x"])).toBe(true);
    expect(() => assertPushAllowed("main")).toThrow(/may not be pushed/);
  });

  it("accepts https remotes without credentials, and local paths", () => {
    expect(parseRemoteUrl("https://github.com/o/r.git")).toEqual({ url: "https://github.com/o/r.git", scheme: "https" });
    expect(parseRemoteUrl("http://127.0.0.1:3000/o/r.git").scheme).toBe("http");
    expect(parseRemoteUrl("/srv/git/r.git").scheme).toBe("file");
    expect(() => parseRemoteUrl("https://x-access-token:t@github.com/o/r.git")).toThrow(/credentials/);
    expect(() => parseRemoteUrl("ext::sh -c evil")).toThrow();
    expect(() => parseRemoteUrl("git@github.com:o/r.git")).toThrow();
    expect(() => parseRemoteUrl("-uevil")).toThrow();
  });

  it("validates branch names with git check-ref-format plus its own rules", async () => {
    const home = mkdtempSync(path.join(tmpdir(), "tackle-gh-"));
    try {
      const git = createHostGit({ gitHome: home });
      expect(await validateBranchName(git, "tackle/issue-12")).toBe("tackle/issue-12");
      for (const bad of ["", "-x", "a..b", "a b", "@{-1}", "HEAD", "x.lock", "a:b", "tackle/issue~1"]) {
        await expect(validateBranchName(git, bad), bad).rejects.toThrow(/invalid branch name/);
      }
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe("git output parsing", () => {
  it("parses porcelain status with renames", () => {
    expect(parseStatus(" M a.ts\0R  new.ts\0old.ts\0?? dir/x y.ts\0")).toEqual([
      { path: "a.ts", code: " M" },
      { path: "new.ts", code: "R " },
      { path: "dir/x y.ts", code: "??" },
    ]);
  });

  it("parses numstat, leaving binary files to be counted by content (never as zero lines)", () => {
    expect(parseNumstat("3\t1\ta.ts\0-\t-\timg.png\0")).toEqual([
      { path: "a.ts", lines: 4 },
      { path: "img.png", lines: null },
    ]);
  });

  it("names checkout directories safely", () => {
    expect(checkoutName("job-12")).toBe("job-12");
    expect(checkoutName("../../etc")).toMatch(/^etc-[0-9a-f]{12}$/);
    expect(checkoutName("acme/widgets#12:retry")).toMatch(/^acme-widgets-12-retry-[0-9a-f]{12}$/);
  });
});
