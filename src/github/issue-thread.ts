import type { IssueComment, IssueSnapshot } from "../agent/ports.js";
import type { GitHubClient, RepoRef } from "./github-client.js";
import type { TrustCheck } from "./repo-access.js";
import { THREAD_MAX_CHARS, THREAD_MAX_COMMENTS, type IssueThread } from "../jobs/job-data.js";
import { LINE_BREAKS, sanitizeUntrustedText } from "../util/sanitize-untrusted-text.js";

/** The reads a thread needs; GitHubClient fits. */
export type ThreadSource = Pick<GitHubClient, "getIssue" | "listComments" | "listReviewComments">;

/** Characters kept of each text; the whole is then fitted under THREAD_MAX_CHARS. */
const MAX_CHARS = { title: 1_000, body: 16_000, comment: 4_000, reviewComment: 2_000, label: 100 } as const;

/**
 * Reads the issue or PR as it is now — title, body, the newest comments and review comments — with
 * every text sanitized and every author marked trusted or not. `excludeCommentIds` drops comments
 * that are not part of the conversation (the job's own tracking comment).
 */
export async function freezeThread(options: {
  github: ThreadSource;
  repo: RepoRef;
  number: number;
  isTrusted: TrustCheck;
  excludeCommentIds?: readonly number[];
  now?: () => number;
}): Promise<IssueThread> {
  const { github, repo, number, isTrusted } = options;
  const excluded = new Set(options.excludeCommentIds ?? []);
  const [issue, listed] = await Promise.all([github.getIssue(repo, number), github.listComments(repo, number, THREAD_MAX_COMMENTS + excluded.size)]);
  const kept = listed.comments.filter((c) => !excluded.has(c.id));
  const comments = await Promise.all(
    kept.map(async (c) => ({
      id: c.id,
      author: c.author,
      authorType: c.authorType,
      trusted: await isTrusted(c.author, c.authorType),
      body: sanitizeUntrustedText(c.body, { maxLength: MAX_CHARS.comment }),
      createdAt: c.createdAt,
    })),
  );
  const thread: IssueThread = {
    frozenAt: new Date(options.now?.() ?? Date.now()).toISOString(),
    lastCommentId: Math.max(0, ...listed.comments.map((c) => c.id)),
    title: oneLine(sanitizeUntrustedText(issue.title, { maxLength: MAX_CHARS.title })),
    body: sanitizeUntrustedText(issue.body, { maxLength: MAX_CHARS.body }),
    state: issue.state,
    labels: issue.labels.slice(0, 100).map((label) => oneLine(sanitizeUntrustedText(label, { maxLength: MAX_CHARS.label }))),
    isPullRequest: issue.isPullRequest,
    comments,
    omittedComments: listed.total - listed.comments.length,
  };
  if (issue.isPullRequest) {
    const review = await github.listReviewComments(repo, number);
    thread.lastReviewCommentId = Math.max(0, ...review.map((c) => c.id));
    thread.reviewComments = await Promise.all(
      review.slice(-THREAD_MAX_COMMENTS).map(async (c) => ({
        author: c.author,
        trusted: await isTrusted(c.author),
        path: oneLine(sanitizeUntrustedText(c.path, { maxLength: MAX_PATH_CHARS })),
        line: c.line,
        body: sanitizeUntrustedText(c.body, { maxLength: MAX_CHARS.reviewComment }),
      })),
    );
  }
  return fitThread(thread);
}

/** Drops the oldest comments, then the oldest review comments, until the thread fits its bound. */
function fitThread(thread: IssueThread): IssueThread {
  const size = () => JSON.stringify(thread).length;
  while (size() > THREAD_MAX_CHARS && thread.comments.length > 0) {
    thread.comments.shift();
    thread.omittedComments += 1;
  }
  while (size() > THREAD_MAX_CHARS && (thread.reviewComments?.length ?? 0) > 0) thread.reviewComments?.shift();
  return thread;
}

/**
 * What the model may read of the thread: as it was frozen, plus what users with write access (and
 * allow-listed bots) wrote since. Comment ids only grow, so "since" is "a higher id than any seen
 * at freeze time"; created_at has one-second resolution and would lose comments of the same second.
 * Without a frozen thread (a job from an older server, a retry) the thread is read live, sanitized
 * and marked the same way.
 */
export async function readThread(options: {
  github: ThreadSource;
  repo: RepoRef;
  number: number;
  thread: IssueThread | undefined;
  isTrusted: TrustCheck;
}): Promise<IssueSnapshot> {
  const { github, repo, number, isTrusted } = options;
  if (options.thread === undefined) return toSnapshot(number, await freezeThread({ github, repo, number, isTrusted }));
  const thread = options.thread;
  const isLater = async (id: number, lastSeen: number | undefined, author: string, authorType?: string) =>
    id > (lastSeen ?? Number.MAX_SAFE_INTEGER) && (await isTrusted(author, authorType));

  const later: IssueComment[] = [];
  for (const c of (await github.listComments(repo, number, THREAD_MAX_COMMENTS)).comments) {
    if (!(await isLater(c.id, thread.lastCommentId, c.author, c.authorType))) continue;
    const body = sanitizeUntrustedText(c.body, { maxLength: MAX_CHARS.comment });
    later.push({ author: c.author, authorType: c.authorType, trusted: true, body, createdAt: c.createdAt });
  }
  const laterReview: NonNullable<IssueSnapshot["reviewComments"]> = [];
  if (thread.reviewComments !== undefined) {
    for (const c of await github.listReviewComments(repo, number)) {
      if (!(await isLater(c.id, thread.lastReviewCommentId, c.author))) continue;
      const body = sanitizeUntrustedText(c.body, { maxLength: MAX_CHARS.reviewComment });
      laterReview.push({ author: c.author, trusted: true, path: oneLine(sanitizeUntrustedText(c.path, { maxLength: MAX_PATH_CHARS })), line: c.line, body });
    }
  }
  return toSnapshot(number, thread, later, laterReview);
}

function toSnapshot(
  number: number,
  thread: IssueThread,
  later: readonly IssueComment[] = [],
  laterReview: NonNullable<IssueSnapshot["reviewComments"]> = [],
): IssueSnapshot {
  const snapshot: IssueSnapshot = {
    number,
    title: thread.title,
    body: thread.body,
    state: thread.state,
    labels: thread.labels,
    isPullRequest: thread.isPullRequest,
    comments: [...thread.comments.map(({ id: _id, ...comment }) => comment), ...later],
    omittedComments: thread.omittedComments,
  };
  if (thread.reviewComments !== undefined) snapshot.reviewComments = [...thread.reviewComments, ...laterReview];
  return snapshot;
}

/**
 * A name printed in a header line the model reads (a review comment's file path, which a fork's
 * author chooses and git lets hold line breaks; a title; a label), on one line: it cannot print a
 * line that passes for a writer's comment.
 */
function oneLine(text: string): string {
  return text.replace(LINE_BREAKS, " ");
}

/** A review comment's file path, at most (git allows longer; a header needs no more). */
const MAX_PATH_CHARS = 1_000;
