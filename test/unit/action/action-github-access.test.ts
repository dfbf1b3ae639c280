import { describe, expect, it } from "vitest";
import { TackleError } from "../../../src/errors/index.js";
import type { GitHubClient } from "../../../src/github/index.js";
import {
  accessProblemOf,
  describeAccessProblem,
  parseAcceptedPermissions,
  watchGitHubAccess,
  type AccessProblem,
} from "../../../src/main/action-github-access.js";
import { md } from "../../../src/util/surface-markdown.js";

/** What our GitHub client throws: a TackleError whose cause is Octokit's RequestError. */
function githubFailure(status: number, message: string, headers: Record<string, string> = {}): TackleError {
  const cause = Object.assign(new Error(`${message} - https://docs.github.com/rest`), { status, response: { headers } });
  return new TackleError(status === 401 ? "auth_failed" : "github_api", `GitHub call failed (HTTP ${status}): ${cause.message}`, { cause });
}

describe("parseAcceptedPermissions", () => {
  it("reads GitHub's sets (`;`) of permissions (`,`) in workflow syntax", () => {
    expect(parseAcceptedPermissions("issues=write; pull_requests=write")).toEqual([["issues: write"], ["pull-requests: write"]]);
    expect(parseAcceptedPermissions("contents=read,metadata=read")).toEqual([["contents: read", "metadata: read"]]);
    expect(parseAcceptedPermissions("")).toEqual([]);
    expect(parseAcceptedPermissions(undefined)).toEqual([]);
    expect(parseAcceptedPermissions("garbage; =write")).toEqual([]);
  });
});

describe("accessProblemOf", () => {
  it("a 401 is a bad token, whatever the call", () => {
    expect(accessProblemOf("getPermission", githubFailure(401, "Bad credentials"))).toEqual({
      status: 401,
      doing: "check the commenter's permission",
      permissions: [],
      detail: "Bad credentials",
    });
  });

  it("a 403 names the permission GitHub's header accepts, else the one the call needs", () => {
    const withHeader = githubFailure(403, "Resource not accessible by integration", { "x-accepted-github-permissions": "issues=write; pull_requests=write" });
    expect(accessProblemOf("createComment", withHeader)?.permissions).toEqual([["issues: write"], ["pull-requests: write"]]);
    expect(accessProblemOf("createPull", githubFailure(403, "Resource not accessible by integration"))).toMatchObject({
      status: 403,
      doing: "open the pull request",
      permissions: [["pull-requests: write"]],
    });
  });

  it("a rate limit's 403, a 404 or a non-HTTP failure is not an access problem", () => {
    expect(accessProblemOf("createComment", githubFailure(403, "secondary rate limit", { "retry-after": "60" }))).toBeUndefined();
    expect(accessProblemOf("createComment", githubFailure(403, "API rate limit exceeded", { "x-ratelimit-remaining": "0" }))).toBeUndefined();
    expect(accessProblemOf("getIssue", githubFailure(404, "Not Found"))).toBeUndefined();
    expect(accessProblemOf("getIssue", new Error("socket hang up"))).toBeUndefined();
  });
});

describe("describeAccessProblem", () => {
  it("says what to change: the github_token input for a 401, the permissions block for a 403", () => {
    const bad: AccessProblem = { status: 401, doing: "read the repository's files", permissions: [], detail: "Bad credentials" };
    expect(describeAccessProblem(bad)).toContain("HTTP 401 when trying to read the repository's files: Bad credentials");
    expect(describeAccessProblem(bad)).toContain("`github_token` input");
    const missing: AccessProblem = {
      status: 403,
      doing: "comment on the issue",
      permissions: [["issues: write"], ["pull-requests: write"]],
      detail: "Resource not accessible by integration",
    };
    expect(describeAccessProblem(missing)).toBe(
      "The workflow's token may not comment on the issue (HTTP 403: Resource not accessible by integration); it needs `issues: write` or `pull-requests: write`. " +
        "Add it to the workflow's `permissions:` block, which for Tackle is `contents: write`, `issues: write`, `pull-requests: write`.",
    );
    const pull: AccessProblem = {
      status: 403,
      doing: "open the pull request",
      permissions: [["pull-requests: write"]],
      detail: "GitHub Actions is not permitted to create or approve pull requests.",
    };
    expect(describeAccessProblem(pull)).toContain("Allow GitHub Actions to create and approve pull requests");
  });
});

describe("watchGitHubAccess", () => {
  it("passes calls through, notes the first access problem once, and rethrows", async () => {
    const calls: string[] = [];
    const inner = {
      getIssue: async () => {
        calls.push("getIssue");
        return { number: 1 };
      },
      addReaction: async () => {
        throw githubFailure(403, "Resource not accessible by integration");
      },
      createComment: async () => {
        throw githubFailure(401, "Bad credentials");
      },
      gitToken: async () => "t",
    } as unknown as GitHubClient;
    const seen: AccessProblem[] = [];
    const watched = watchGitHubAccess(inner, (problem) => seen.push(problem));
    expect(await watched.github.getIssue({ owner: "o", name: "r" }, 1)).toEqual({ number: 1 });
    expect(watched.problem()).toBeUndefined();
    await expect(watched.github.addReaction({ owner: "o", name: "r" }, { kind: "issue", number: 1 }, "eyes")).rejects.toBeInstanceOf(TackleError);
    await expect(watched.github.createComment({ owner: "o", name: "r" }, 1, md`x`)).rejects.toBeInstanceOf(TackleError);
    expect(watched.problem()).toMatchObject({ status: 403, doing: "react to the trigger", permissions: [["issues: write"]] });
    expect(seen).toHaveLength(1);
    expect(calls).toEqual(["getIssue"]);
    expect(await watched.github.gitToken()).toBe("t");
  });
});
