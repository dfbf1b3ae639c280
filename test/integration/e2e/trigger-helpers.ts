// Helpers for the trigger and command end-to-end tests: deliveries, scripted sessions, and what the
// fakes saw.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import {
  cleanGitEnv,
  issueCommentCreatedPayload,
  issuesAssignedPayload,
  sendWebhook,
  type FakeGitHub,
  type ScriptedBlock,
  type ScriptedTurn,
  type WebhookResponse,
} from "../../fakes/index.js";
import { OWNER, REPO, type Harness } from "./harness.js";

/** Delivers one signed webhook to the harness's App. */
export function deliver(h: Harness, event: string, payload: unknown, deliveryId?: string): Promise<WebhookResponse> {
  return sendWebhook({ url: h.webhookUrl, secret: h.gh.webhookSecret, event, payload, ...(deliveryId ? { deliveryId } : {}) });
}

export interface AssignOptions {
  /** @defaultValue "alice" */
  sender?: string;
  title?: string;
  deliveryId?: string;
  /** @defaultValue the fake's webhook secret */
  secret?: string;
}

/**
 * Sends `issues.assigned` (the bot as assignee) to any webhook URL: the harness's App, or a spawned
 * `tackle server`.
 */
export function sendAssigned(url: string, gh: FakeGitHub, issueNumber: number, options: AssignOptions = {}): Promise<WebhookResponse> {
  return sendWebhook({
    url,
    secret: options.secret ?? gh.webhookSecret,
    event: "issues",
    ...(options.deliveryId ? { deliveryId: options.deliveryId } : {}),
    payload: issuesAssignedPayload({
      ...gh.repoContext(OWNER, REPO),
      issueNumber,
      ...(options.title === undefined ? {} : { title: options.title }),
      assignee: gh.botLogin,
      sender: options.sender ?? "alice",
    }),
  });
}

/** Assigns the bot to an issue through the harness's App. */
export function assign(h: Harness, issueNumber: number, options: AssignOptions = {}): Promise<WebhookResponse> {
  return sendAssigned(h.webhookUrl, h.gh, issueNumber, options);
}

/** Posts a real comment on the fake, then delivers its `issue_comment.created`, so 👀 lands on it. */
export async function comment(
  h: Harness,
  issueNumber: number,
  body: string,
  options: { user?: string; isPullRequest?: boolean; userType?: "User" | "Bot" } = {},
): Promise<WebhookResponse> {
  const user = options.user ?? "alice";
  const record = h.gh.addComment({ owner: OWNER, repo: REPO, issueNumber, body, user });
  return deliver(
    h,
    "issue_comment",
    issueCommentCreatedPayload({
      ...h.gh.repoContext(OWNER, REPO),
      issueNumber,
      commentBody: body,
      commentId: record.id,
      commenter: user,
      ...(options.userType ? { commenterType: options.userType } : {}),
      ...(options.isPullRequest ? { isPullRequest: true } : {}),
    }),
  );
}

/** Commits `.github/tackle.yml` to the default branch. */
export async function setRepoConfig(h: Harness, yaml: string): Promise<void> {
  await h.gh.commitFiles(OWNER, REPO, "main", { ".github/tackle.yml": yaml }, { message: "Tackle config" });
}

export const botComments = (h: Harness, issueNumber: number) => h.gh.comments(OWNER, REPO, issueNumber).filter((c) => c.user === h.gh.botLogin);

/** Everything sent to the model, as one string. */
export const sentToModel = (h: Harness): string => JSON.stringify(h.model.requests.map((r) => r.body));

/** Conversations started: first requests of a session (no assistant turn yet). */
export const sessions = (h: Harness): number =>
  h.model.requests.filter((r) => Array.isArray(r.body.messages) && r.body.messages.every((m) => (m as { role: string }).role !== "assistant")).length;

const turn = (...content: ScriptedBlock[]): ScriptedTurn => ({ content, stop_reason: "tool_use" });

/** Reads the issue, writes one file, commits, opens (or updates) the PR and ends. */
export function editScript(file: string, content: string): ScriptedTurn[] {
  return [
    turn({ type: "tool_use", name: "GetIssue", input: {} }),
    turn({ type: "tool_use", name: "Write", input: { file_path: file, content } }),
    turn({ type: "tool_use", name: "git_commit", input: { message: `Update ${file}` } }),
    turn({ type: "tool_use", name: "create_pull_request", input: { title: `Update ${file}`, body: "As asked." } }),
    turn({ type: "tool_use", name: "task_done", input: { summary: `Updated ${file}.` } }),
  ];
}

/** Reads the issue and ends without changes. */
export function lookScript(): ScriptedTurn[] {
  return [turn({ type: "tool_use", name: "GetIssue", input: {} }), turn({ type: "tool_use", name: "task_done", input: { summary: "Nothing to change." } })];
}

/** Whether `older` is an ancestor of `newer` in the fake's bare repository (no history was rewritten). */
export async function isAncestor(h: Harness, older: string, newer: string): Promise<boolean> {
  try {
    await promisify(execFile)("git", ["--git-dir", h.gh.bareRepoPath(OWNER, REPO), "merge-base", "--is-ancestor", older, newer], {
      env: cleanGitEnv(h.home),
    });
    return true;
  } catch {
    return false;
  }
}
