// The tracking comment on GitHub: which comment a job edits (its own, the webhook side's, an earlier attempt's) and its writer.
import { errorMessage } from "../errors/index.js";
import type { GitHubClient, RepoRef } from "../github/index.js";
import type { AckClaims } from "../jobs/ack-claims.js";
import type { JobData } from "../jobs/job-data.js";
import type { Logger } from "../logging/logger.js";
import { sleep } from "../util/sleep.js";
import type { CommentWriter } from "./tracker.js";
import { trackingMarker } from "./tracking-comment.js";
import type { SurfaceMarkdown } from "../util/surface-markdown.js";
export async function findTrackingComment(github: GitHubClient, repo: RepoRef, number: number, jobId: string, log: Logger): Promise<number | null> {
  try {
    const marker = trackingMarker(jobId);
    const { comments } = await github.listComments(repo, number, 100);
    // Only a bot's comment: anyone may write the marker (the Action's job id is public while its runner
    // starts), and the job would then edit a comment shown under their name, which they can edit later.
    return comments.find((c) => c.authorType === "Bot" && c.body.includes(marker))?.id ?? null;
  } catch (error) {
    log.warn({ err: error }, "could not look for an earlier tracking comment");
    return null;
  }
}

/** Bound on waiting for the acknowledgement claims to answer again (Redis restarting). */
const CLAIMS_RETRY_MS = 10 * 60_000;

/**
 * The comment this job edits: one the webhook side is posting (the claim says who posts it), one an
 * earlier attempt posted (found by its marker), or null when this job should post it. Claims that
 * cannot be read (Redis restarting) are asked again until they answer: skipping them would let the
 * job post a second comment beside the one the webhook side is about to post.
 */
export async function resolveTrackingComment(
  github: GitHubClient,
  data: JobData,
  claims: AckClaims | undefined,
  signal: AbortSignal,
  log: Logger,
): Promise<number | null> {
  if (claims) {
    const deadline = Date.now() + CLAIMS_RETRY_MS;
    for (let wait = 250; ; wait = Math.min(wait * 2, 5_000)) {
      try {
        if (await claims.claim(data.jobId)) return null;
        const id = await claims.waitForComment(data.jobId, { timeoutMs: 120_000, signal });
        if (id !== null) return id;
        break;
      } catch (error) {
        if (signal.aborted || Date.now() + wait > deadline) {
          log.warn({ err: errorMessage(error) }, "the acknowledgement claims did not answer; looking for the comment");
          break;
        }
        log.warn({ err: errorMessage(error), retryInMs: wait }, "could not consult the acknowledgement claims; asking again");
        await sleep(wait, signal);
      }
    }
  }
  return findTrackingComment(github, data.repo, data.number, data.jobId, log);
}

/**
 * The tracking comment's writer. `initialId` is a promise: who posts the comment (the webhook side
 * or this job) is settled in the background, and the first write waits for it, so the agent never
 * does; later writes queue behind the first in the tracker.
 */
export function githubSink(
  github: GitHubClient,
  repo: RepoRef,
  number: number,
  initialId: Promise<number | null>,
  onCreated: (commentId: number) => void = () => undefined,
): CommentWriter {
  let commentId: number | null | undefined;
  return {
    async write(body: SurfaceMarkdown): Promise<number | null> {
      commentId ??= await initialId.catch(() => null);
      if (commentId === null) {
        commentId = (await github.createComment(repo, number, body)).id;
        onCreated(commentId);
      } else {
        await github.updateComment(repo, commentId, body);
      }
      return commentId;
    },
  };
}
