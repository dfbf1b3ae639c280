import { describe, expect, it } from "vitest";
import { jobDataSchema } from "../../../src/jobs/job-data.js";
import { isCommandTrigger, isTaskTrigger, isTrigger, isTriggerEnabled, jobTriggerOf, parseTrigger, type ParseResult } from "../../../src/triggers/index.js";
import { defaultRepoConfig } from "../../../src/config/index.js";
import {
  BOT_LOGIN,
  INSTALLATION,
  issueComment,
  issuesAssigned,
  issuesLabeled,
  pullRequestReview,
  pullRequestReviewComment,
  rawExample,
} from "./webhook-examples.js";

const options = { deliveryId: "delivery-1", botLogin: BOT_LOGIN, botName: "tackle", triggerLabel: "tackle" };

/** What every trigger parsed from a Hello-World example carries, sent by Codertocat. */
function envelope(number: number) {
  return {
    deliveryId: "delivery-1",
    repo: { owner: "Codertocat", name: "Hello-World" },
    number,
    installationId: INSTALLATION.id,
    actor: { login: "Codertocat", type: "User" },
  };
}

function parse(eventName: string, payload: unknown): ParseResult {
  return parseTrigger(eventName, payload, options);
}

describe("parseTrigger: issues", () => {
  it("parses issues.assigned to the bot, with the sender as actor", () => {
    const result = parse("issues", issuesAssigned());
    expect(result).toEqual({
      kind: "issue_assigned",
      ...envelope(1),
      isPullRequest: false,
      pullRequest: null,
    });
    expect(isTaskTrigger(result)).toBe(true);
  });

  it("matches the bot login case-insensitively", () => {
    const payload = issuesAssigned();
    payload.assignee!.login = "Tackle[BOT]";
    expect(parse("issues", payload).kind).toBe("issue_assigned");
  });

  it("ignores assignment to someone else", () => {
    const payload = issuesAssigned();
    payload.assignee!.login = "alice";
    expect(parse("issues", payload)).toEqual({ kind: "ignored", reason: "assigned to someone other than the bot" });
  });

  it("leaves installationId out when the payload has none (Action events)", () => {
    const payload = issuesAssigned() as unknown as Record<string, unknown>;
    delete payload.installation;
    const result = parse("issues", payload);
    expect(isTrigger(result) && "installationId" in result).toBe(false);
  });

  it("parses issues.labeled with the trigger label, in any case", () => {
    const result = parse("issues", issuesLabeled("Tackle"));
    expect(result).toMatchObject({ kind: "issue_labeled", label: "Tackle", number: 1 });
  });

  it("ignores other labels", () => {
    expect(parse("issues", issuesLabeled("bug"))).toMatchObject({ kind: "ignored" });
  });

  it("ignores other issue actions", () => {
    expect(parse("issues", rawExample("issues", "opened"))).toEqual({
      kind: "ignored",
      reason: "`issues.opened` does not trigger",
    });
  });
});

describe("parseTrigger: comments", () => {
  it("parses a mention on an issue into a comment trigger with the instructions", () => {
    const result = parse("issue_comment", issueComment("@tackle please fix the typo in README"));
    expect(result).toEqual({
      kind: "comment",
      ...envelope(1),
      isPullRequest: false,
      pullRequest: null,
      commentId: 492700400,
      commentKind: "issue",
      instructions: "please fix the typo in README",
    });
  });

  it("marks a comment on a pull request: isPullRequest, head not known yet", () => {
    const result = parse("issue_comment", issueComment("/tackle fix the failing test", { onPullRequest: true }));
    expect(result).toMatchObject({
      kind: "comment",
      isPullRequest: true,
      pullRequest: { headKnown: false },
      instructions: "fix the failing test",
    });
  });

  it("ignores a comment that does not mention the bot as a whole word", () => {
    for (const body of ["ask @tackle-bot", "mail foo@tackle.com", "no mention here", "see src/tackle/x.ts"]) {
      expect(parse("issue_comment", issueComment(body))).toMatchObject({ kind: "ignored" });
    }
  });

  it("ignores edited and deleted comments", () => {
    for (const action of ["edited", "deleted"]) {
      const payload = rawExample("issue_comment", action);
      (payload.comment as { body: string }).body = "@tackle do it";
      expect(parse("issue_comment", payload)).toEqual({
        kind: "ignored",
        reason: `\`issue_comment.${action}\` does not trigger`,
      });
    }
  });

  it("ignores the bot's own comments, by sender or by comment author", () => {
    const bySender = issueComment("@tackle working on it");
    bySender.sender = { ...bySender.sender, login: BOT_LOGIN, type: "Bot" };
    expect(parse("issue_comment", bySender)).toEqual({ kind: "ignored", reason: "the bot's own event" });

    const byAuthor = issueComment("@tackle working on it");
    byAuthor.comment.user = { ...byAuthor.comment.user, login: BOT_LOGIN, type: "Bot" };
    expect(parse("issue_comment", byAuthor)).toEqual({ kind: "ignored", reason: "the bot's own comment" });
  });

  it("reports another bot as a Bot actor (the gate decides)", () => {
    const payload = issueComment("@tackle bump deps");
    payload.comment.user = { ...payload.comment.user, login: "renovate[bot]", type: "Bot" };
    expect(parse("issue_comment", payload)).toMatchObject({ actor: { login: "renovate[bot]", type: "Bot" } });
  });
});

describe("parseTrigger: pull request reviews", () => {
  it("parses a review mentioning the bot, with the PR's head and base", () => {
    const result = parse("pull_request_review", pullRequestReview("Looks close. @tackle rename the helper"));
    expect(result).toEqual({
      kind: "pr_review",
      ...envelope(2),
      isPullRequest: true,
      pullRequest: {
        headKnown: true,
        head: { ref: "changes", repoFullName: "Codertocat/Hello-World", sha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821" },
        baseRef: "master",
      },
      commentId: 237895671,
      commentKind: "review",
      instructions: "Looks close. tackle rename the helper",
      reviewState: "commented",
    });
  });

  it("ignores a review without a body or without a mention", () => {
    expect(parse("pull_request_review", pullRequestReview(null))).toEqual({
      kind: "ignored",
      reason: "the review has no body",
    });
    expect(parse("pull_request_review", pullRequestReview("LGTM"))).toMatchObject({ kind: "ignored" });
  });

  it("keeps a deleted fork's head as repoFullName null", () => {
    const payload = pullRequestReview("@tackle fix it");
    (payload.pull_request.head as { repo: unknown }).repo = null;
    expect(parse("pull_request_review", payload)).toMatchObject({
      pullRequest: { headKnown: true, head: { repoFullName: null } },
    });
  });

  it("parses a review comment mentioning the bot, with path and line", () => {
    const result = parse("pull_request_review_comment", pullRequestReviewComment("@tackle: use a constant here"));
    expect(result).toMatchObject({
      kind: "pr_review_comment",
      number: 2,
      commentId: 284312630,
      commentKind: "review_comment",
      instructions: "use a constant here",
      path: "README.md",
      isPullRequest: true,
      pullRequest: { headKnown: true, head: { ref: "changes" }, baseRef: "master" },
    });
  });
});

describe("parseTrigger: commands", () => {
  it.each(["stop", "retry", "approve", "deny", "help"])("parses /tackle %s", (word) => {
    const result = parse("issue_comment", issueComment(`/tackle ${word}`));
    expect(result).toMatchObject({ kind: "command", command: word, word, args: "", commentKind: "issue", source: "comment" });
    expect(isCommandTrigger(result)).toBe(true);
    expect(isTaskTrigger(result)).toBe(false);
  });

  it("parses @tackle stop and keeps the text after the word as args", () => {
    expect(parse("issue_comment", issueComment("@tackle deny it touches prod config"))).toMatchObject({
      kind: "command",
      command: "deny",
      args: "it touches prod config",
    });
  });

  it("reports an unknown slash command so the caller can reply with help", () => {
    expect(parse("issue_comment", issueComment("/tackle stpo"))).toMatchObject({
      kind: "command",
      command: "unknown",
      word: "stpo",
    });
  });

  it("treats a slash followed by free text as a task", () => {
    expect(parse("issue_comment", issueComment("/tackle fix the tests"))).toMatchObject({
      kind: "comment",
      instructions: "fix the tests",
    });
  });

  it("parses commands in review comments and reviews too", () => {
    expect(parse("pull_request_review_comment", pullRequestReviewComment("/tackle stop"))).toMatchObject({
      kind: "command",
      command: "stop",
      commentKind: "review_comment",
      source: "pr_review_comment",
      pullRequest: { headKnown: true },
    });
    expect(parse("pull_request_review", pullRequestReview("/tackle approve"))).toMatchObject({
      kind: "command",
      command: "approve",
      commentKind: "review",
      source: "pr_review",
    });
  });
});

describe("parseTrigger: other events and invalid payloads", () => {
  it("ignores events that never trigger", () => {
    expect(parse("push", {})).toEqual({ kind: "ignored", reason: "`push` events do not trigger" });
  });

  it("refuses a payload that is not an object", () => {
    expect(parse("issues", null)).toEqual({ kind: "invalid", reason: "issues payload is not an object" });
  });

  it("names the missing field", () => {
    const payload = issueComment("@tackle hi") as unknown as { comment: Record<string, unknown> };
    delete payload.comment.body;
    const result = parse("issue_comment", payload);
    expect(result.kind).toBe("invalid");
    expect(result.kind === "invalid" && result.reason).toContain("`comment.body`");
  });

  it("names a bad envelope field before anything else", () => {
    const payload = issuesAssigned() as unknown as { repository: Record<string, unknown> };
    payload.repository.name = 42;
    const result = parse("issues", payload);
    expect(result).toMatchObject({ kind: "invalid" });
    expect(result.kind === "invalid" && result.reason).toContain("`repository.name`");
  });

  it("names a bad pull request field", () => {
    const payload = pullRequestReview("@tackle go") as unknown as { pull_request: { head: Record<string, unknown> } };
    delete payload.pull_request.head.sha;
    const result = parse("pull_request_review", payload);
    expect(result.kind === "invalid" && result.reason).toContain("`pull_request.head.sha`");
  });

  it("does not mistake inherited property names for events or actions", () => {
    expect(parse("constructor", {})).toMatchObject({ kind: "ignored" });
    const payload = issuesAssigned() as unknown as { action: string };
    payload.action = "toString";
    expect(parse("issues", payload)).toEqual({ kind: "ignored", reason: "`issues.toString` does not trigger" });
  });

  it("never throws, whatever the payload", () => {
    for (const payload of [undefined, 1, "x", [], { action: 1 }, { action: "created" }]) {
      expect(() => parse("issue_comment", payload)).not.toThrow();
    }
  });
});

describe("jobTriggerOf and isTriggerEnabled", () => {
  it("maps comments to issue_comment or pr_comment job triggers that the job schema accepts", () => {
    const onIssue = parse("issue_comment", issueComment("@tackle go"));
    const onPr = parse("issue_comment", issueComment("@tackle go", { onPullRequest: true }));
    if (!isTaskTrigger(onIssue) || !isTaskTrigger(onPr)) throw new Error("expected task triggers");
    expect(jobTriggerOf(onIssue)).toEqual({
      kind: "issue_comment",
      actor: "Codertocat",
      commentId: 492700400,
      commentKind: "issue",
      instructions: "go",
    });
    expect(jobTriggerOf(onPr).kind).toBe("pr_comment");
    expect(jobDataSchema.shape.trigger.safeParse(jobTriggerOf(onPr)).success).toBe(true);
  });

  it("honours the repo config's trigger switches; commands always pass", () => {
    const config = { ...defaultRepoConfig().trigger, on_assign: false, on_comment: false };
    const assigned = parse("issues", issuesAssigned());
    const labeled = parse("issues", issuesLabeled());
    const comment = parse("issue_comment", issueComment("@tackle go"));
    const stop = parse("issue_comment", issueComment("/tackle stop"));
    if (!isTrigger(assigned) || !isTrigger(labeled) || !isTrigger(comment) || !isTrigger(stop)) throw new Error();
    expect(isTriggerEnabled(assigned, config)).toBe(false);
    expect(isTriggerEnabled(labeled, config)).toBe(true);
    expect(isTriggerEnabled(labeled, { ...config, label: "ai" })).toBe(false);
    expect(isTriggerEnabled(comment, config)).toBe(false);
    expect(isTriggerEnabled(stop, config)).toBe(true);
  });
});
