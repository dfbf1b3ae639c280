/**
 * Who counts as a writer is one rule (src/github/repo-access.ts › isWriter), asked through one
 * permission cache per job: the gate (may this actor make Tackle work) and the thread's trust marks
 * (do this author's words count) answer the same for every answer of the permission endpoint.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createAccessCache, createTrustCheck, isWriter, type RepoAccess } from "../../../src/github/index.js";
import { gateTrigger, parseTrigger, type Trigger } from "../../../src/triggers/index.js";
import { BOT_LOGIN, issueComment } from "../triggers/webhook-examples.js";

const repo = { owner: "Codertocat", name: "Hello-World" };

/** The permission endpoint's answers: the legacy field, then the role (built-in or custom). */
const ANSWERS: Array<[RepoAccess, boolean]> = [
  [{ permission: "admin", roleName: "admin" }, true],
  [{ permission: "write", roleName: "maintain" }, true],
  [{ permission: "write", roleName: "write" }, true],
  [{ permission: "write", roleName: "release-manager" }, true],
  [{ permission: "WRITE" }, true],
  [{ permission: "read", roleName: "maintain" }, true],
  [{ permission: "read", roleName: "triage" }, false],
  [{ permission: "read", roleName: "read" }, false],
  [{ permission: "read", roleName: "security-reviewer" }, false],
  [{ permission: "none" }, false],
];

function commentBy(login: string): Trigger {
  const payload = issueComment("@tackle fix it");
  payload.comment.user = { ...payload.comment.user, login, type: "User" };
  payload.sender = { ...payload.sender, login, type: "User" };
  const result = parseTrigger("issue_comment", payload, { deliveryId: "d", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" });
  if (result.kind !== "comment") throw new Error(`expected a comment trigger, got ${result.kind}`);
  return result;
}

function permissions(answers: Record<string, RepoAccess | Error>) {
  const calls: string[] = [];
  return {
    calls,
    getPermission: async (_repo: typeof repo, user: string): Promise<RepoAccess> => {
      calls.push(user);
      const answer = answers[user] ?? { permission: "none" };
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
}

describe("isWriter", () => {
  it.each(ANSWERS)("%j → %s", (access, writer) => {
    expect(isWriter(access)).toBe(writer);
  });

  it("the gate and the trust marks agree on every answer, through one cache", async () => {
    for (const [access, writer] of ANSWERS) {
      const github = permissions({ alice: access });
      const accessOf = createAccessCache(github, repo);
      const gate = await gateTrigger(commentBy("alice"), { accessOf, allowedBots: [], botLogin: BOT_LOGIN });
      const trusted = await createTrustCheck(accessOf, [])("Alice");
      expect([gate.allowed, trusted], JSON.stringify(access)).toEqual([writer, writer]);
      expect(github.calls, "one request for the job").toEqual(["alice"]);
    }
  });
});

describe("createAccessCache and createTrustCheck", () => {
  it("ask once per login whatever its case, and keep a failure (the trust check fails closed)", async () => {
    const github = permissions({ alice: { permission: "write" }, mallory: new Error("HTTP 502") });
    const accessOf = createAccessCache(github, repo);
    const isTrusted = createTrustCheck(accessOf, []);
    expect(await Promise.all([isTrusted("alice"), isTrusted("ALICE"), isTrusted("mallory"), isTrusted("Mallory")])).toEqual([true, true, false, false]);
    await expect(accessOf("mallory")).rejects.toThrow("HTTP 502");
    expect(github.calls).toEqual(["alice", "mallory"]);
  });

  it("trusts a bot only when allow-listed, without asking the permission endpoint", async () => {
    const github = permissions({ "renovate[bot]": { permission: "admin" }, "sneaky[bot]": { permission: "admin" } });
    const isTrusted = createTrustCheck(createAccessCache(github, repo), ["renovate"]);
    expect(await isTrusted("renovate[bot]", "Bot")).toBe(true);
    expect(await isTrusted("sneaky[bot]", "User")).toBe(false);
    expect(await isTrusted("dependabot", "Bot")).toBe(false);
    expect(github.calls).toEqual([]);
  });
});

describe("one place decides who is a writer", () => {
  const sourceFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith(".ts") ? [full] : [];
    });

  it("no other source file names the write permissions or reads the permission endpoint's answer", () => {
    const others = sourceFiles(path.resolve("src"))
      .filter((file) => !file.endsWith(path.join("github", "repo-access.ts")) && !file.endsWith(path.join("github", "github-client.ts")))
      .filter((file) => /["']maintain["']|\.roleName\b|role_name|WRITE_PERMISSIONS\s*=/.test(readFileSync(file, "utf8")))
      .map((file) => path.relative(process.cwd(), file));
    expect(others).toEqual([]);
  });

  it("triggers/ imports nothing from worker/", () => {
    const imports = sourceFiles(path.resolve("src/triggers")).filter((file) => /from\s+["']\.\.\/worker\//.test(readFileSync(file, "utf8")));
    expect(imports).toEqual([]);
  });
});
