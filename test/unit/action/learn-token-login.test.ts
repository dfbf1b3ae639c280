// Whom `github_token` acts as, from GitHub's GET /user: a personal access token's user; nothing for the
// workflow's installation token (403 "Resource not accessible by integration") or anything that fails.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { learnTokenLogin } from "../../../src/main/action-github-access.js";
import { startFakeGitHub, type FakeGitHub } from "../../fakes/index.js";

const PAT = "ghp_someoneElsesPersonalToken00000000000";
let gh: FakeGitHub;

beforeAll(async () => {
  gh = await startFakeGitHub({ staticTokens: { [PAT]: "machine-user" } });
  await gh.addRepo({ owner: "octo", name: "widgets" });
});
afterAll(() => gh.close());

describe("learnTokenLogin", () => {
  it("a personal access token: its user's login", async () => {
    expect(await learnTokenLogin(gh.apiUrl, PAT)).toBe("machine-user");
  });

  it("an installation token (what GITHUB_TOKEN is): GitHub answers 403, so undefined", async () => {
    gh.clearLog();
    expect(await learnTokenLogin(gh.apiUrl, gh.mintToken({ owner: "octo" }))).toBeUndefined();
    expect(gh.requests().map((r) => [r.method, r.path, r.status])).toEqual([["GET", "/api/v3/user", 403]]);
  });

  it("a token GitHub does not know, or no GitHub at all: undefined, never a throw", async () => {
    expect(await learnTokenLogin(gh.apiUrl, "ghp_nobodyKnowsThisToken000000000000000")).toBeUndefined();
    expect(await learnTokenLogin("http://127.0.0.1:9/api/v3", PAT)).toBeUndefined();
  });
});
