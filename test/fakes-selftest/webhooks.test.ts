import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verify } from "@octokit/webhooks-methods";
import { Octokit } from "@octokit/rest";
import { createNodeMiddleware, Probot } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  issueCommentCreatedPayload,
  issuesAssignedPayload,
  issuesLabeledPayload,
  pullRequestReviewCommentCreatedPayload,
  pullRequestReviewSubmittedPayload,
  sendWebhook,
  startFakeGitHub,
  type FakeGitHub,
} from "../fakes/index.js";

describe("webhook payloads and signed deliveries", () => {
  let gh: FakeGitHub;
  let server: Server;
  let webhookUrl: string;
  const received: Array<{ name: string; id: string }> = [];

  beforeAll(async () => {
    gh = await startFakeGitHub();
    await gh.addRepo({ owner: "acme", name: "widgets", ownerType: "Organization" });
    gh.addIssue({ owner: "acme", repo: "widgets", title: "Broken build", body: "Please fix", user: "alice" });

    // A real Probot app behind a real HTTP server, acting on the fake GitHub.
    const probot = new Probot({ appId: gh.appId, privateKey: gh.privateKeyPem, secret: gh.webhookSecret, baseUrl: gh.apiUrl, logLevel: "fatal" });
    const middleware = await createNodeMiddleware(
      (app) => {
        app.onAny(async (context) => {
          received.push({ name: context.name, id: context.id });
        });
        app.on("issue_comment.created", async (context) => {
          await context.octokit.rest.reactions.createForIssueComment(context.repo({ comment_id: context.payload.comment.id, content: "eyes" }));
        });
      },
      { probot, webhooksPath: "/api/github/webhooks" },
    );
    server = createServer((req, res) => {
      void middleware(req, res, () => {
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await gh.close();
  });

  it("builds payloads consistent with the fake GitHub's REST answers", async () => {
    const payload = issuesAssignedPayload({ ...gh.repoContext("acme", "widgets"), issueNumber: 1, title: "Broken build", sender: "alice" });
    const token = gh.mintToken({ owner: "acme" });
    const octokit = new Octokit({ baseUrl: gh.apiUrl, auth: token });
    const { data: repo } = await octokit.rest.repos.get({ owner: "acme", repo: "widgets" });
    const { data: issue } = await octokit.rest.issues.get({ owner: "acme", repo: "widgets", issue_number: 1 });

    expect(payload.action).toBe("assigned");
    expect(payload.repository).toMatchObject({
      id: repo.id,
      full_name: "acme/widgets",
      default_branch: "main",
      owner: { login: "acme", type: "Organization" },
    });
    expect(payload.installation?.id).toBe(gh.installationId("acme"));
    expect(payload.assignee).toMatchObject({ login: "tackle[bot]", type: "Bot" });
    expect(payload.issue).toMatchObject({ id: issue.id, number: 1, html_url: issue.html_url, assignees: [{ login: "tackle[bot]" }] });
    expect(payload.sender).toMatchObject({ login: "alice", type: "User" });
    expect(payload).toHaveProperty("organization.login", "acme");
    // Fields only the example supplies are kept, with URLs moved onto the fake host.
    expect(JSON.stringify(payload)).not.toContain("api.github.com");

    const labeled = issuesLabeledPayload({ ...gh.repoContext("acme", "widgets"), issueNumber: 1, label: "tackle" });
    expect(labeled.label?.name).toBe("tackle");
    expect(labeled.issue.labels?.map((l) => l.name)).toContain("tackle");

    const onPr = issueCommentCreatedPayload({
      ...gh.repoContext("acme", "widgets"),
      issueNumber: 2,
      isPullRequest: true,
      commentBody: "/tackle retry",
      commentId: 7,
      commenter: "renovate[bot]",
    });
    expect(onPr.issue.pull_request).toBeDefined();
    expect(onPr.comment).toMatchObject({ id: 7, body: "/tackle retry", user: { login: "renovate[bot]", type: "Bot" } });
    expect(onPr.sender.type).toBe("Bot");

    const review = pullRequestReviewSubmittedPayload({
      ...gh.repoContext("acme", "widgets"),
      pullNumber: 2,
      reviewBody: "@tackle address this",
      head: { ref: "feature", owner: "forker" },
    });
    expect(review.review).toMatchObject({ body: "@tackle address this", state: "commented" });
    expect(review.pull_request.head).toMatchObject({ ref: "feature", label: "forker:feature", repo: { full_name: "forker/widgets" } });

    const reviewComment = pullRequestReviewCommentCreatedPayload({
      ...gh.repoContext("acme", "widgets"),
      pullNumber: 2,
      commentBody: "@tackle rename",
      head: { ref: "tackle/issue-1" },
      path: "src/a.ts",
    });
    expect(reviewComment.comment).toMatchObject({ body: "@tackle rename", path: "src/a.ts" });
    expect(reviewComment.pull_request.head.repo?.full_name).toBe("acme/widgets");
  });

  it("signs deliveries so @octokit/webhooks-methods verifies them", async () => {
    const payload = issuesAssignedPayload({ ...gh.repoContext("acme", "widgets"), issueNumber: 1 });
    let captured: { body: string; signature: string; headers: Record<string, string | string[] | undefined> } | undefined;
    const sink = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        captured = { body: Buffer.concat(chunks).toString(), signature: String(req.headers["x-hub-signature-256"]), headers: req.headers };
        res.writeHead(202).end("ok");
      });
    });
    await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
    const result = await sendWebhook({ url: `http://127.0.0.1:${(sink.address() as AddressInfo).port}/`, secret: "s3cret", event: "issues", payload });
    await new Promise((resolve) => sink.close(resolve));
    expect(result).toMatchObject({ status: 202, body: "ok" });
    expect(result.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    if (!captured) throw new Error("nothing delivered");
    expect(await verify("s3cret", captured.body, captured.signature)).toBe(true);
    expect(await verify("wrong", captured.body, captured.signature)).toBe(false);
    expect(captured.headers).toMatchObject({ "x-github-event": "issues", "x-github-delivery": result.deliveryId, "content-type": "application/json" });
    expect(String(captured.headers["user-agent"])).toMatch(/^GitHub-Hookshot\//);
  });

  it("drives a real Probot app, whose reaction lands in the fake GitHub", async () => {
    const comment = gh.addComment({ owner: "acme", repo: "widgets", issueNumber: 1, body: "@tackle please", user: "alice" });
    const payload = issueCommentCreatedPayload({
      ...gh.repoContext("acme", "widgets"),
      issueNumber: 1,
      title: "Broken build",
      commentBody: comment.body,
      commentId: comment.id,
      commenter: "alice",
    });
    const result = await sendWebhook({ url: webhookUrl, secret: gh.webhookSecret, event: "issue_comment", payload, deliveryId: "delivery-1" });
    expect(result.status).toBe(200);
    expect(received).toContainEqual({ name: "issue_comment", id: "delivery-1" });
    const reaction = await gh.waitFor(() => gh.reactions("acme", "widgets", { commentId: comment.id })[0], 5000);
    expect(reaction).toMatchObject({ content: "eyes", user: "tackle[bot]" });
  });

  it("is refused by Probot when signed with the wrong secret", async () => {
    const payload = issuesAssignedPayload({ ...gh.repoContext("acme", "widgets"), issueNumber: 1 });
    const result = await sendWebhook({ url: webhookUrl, secret: "not-the-secret", event: "issues", payload });
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(received.map((r) => r.id)).not.toContain(result.deliveryId);
  });
});
