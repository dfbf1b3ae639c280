// Broken (red team of #20, eleventh pass, tracking comment / Action): a job with no acknowledgement
// claims (every Action run; a server job whose claims gave up) looks for "an earlier attempt's"
// tracking comment by its hidden marker alone: src/worker/tracking-comment-sink.ts ›
// findTrackingComment takes the first comment whose body includes `<!-- tackle:tracking job=<id> -->`,
// whoever wrote it. In the Action the id is `<owner>-<repo>-<n>-run-<GITHUB_RUN_ID>-<attempt>`, and the
// run id is public (the Actions tab, the API) while the runner is still setting up. An outsider who
// comments the marker gets their comment chosen: the job then edits it (the workflow token may edit any
// comment) and every later status, PR link and summary appears under the outsider's name, in a comment
// they can edit afterwards. Measured: resolveTrackingComment, as the Action calls it (no claims),
// returned the outsider's comment id.
// What should hold: only a comment the bot wrote (the token's own login / the App's bot) is taken as
// the job's tracking comment; anyone else's is ignored and the job posts its own.
// Fixed: findTrackingComment takes only a comment whose author is a bot (tracking-comment-sink.ts).
import { describe, expect, it } from "vitest";
import type { CommentInfo, GitHubClient } from "../../src/github/index.js";
import type { JobData } from "../../src/jobs/job-data.js";
import { silentLogger } from "../../src/logging/logger.js";
import { jobIdOf } from "../../src/triggers/job-id.js";
import { resolveTrackingComment } from "../../src/worker/tracking-comment-sink.js";
import { trackingMarker } from "../../src/worker/tracking-comment.js";

describe("the tracking comment an Action job resumes", () => {
  it("is never a comment an outsider wrote with the job's marker", async () => {
    const repo = { owner: "octo", name: "app" };
    // The Action's job id: its run id and attempt, as src/main/action.ts passes them (jobKey).
    const jobId = jobIdOf({ repo, number: 7 }, "run-987654321-1");
    const planted: CommentInfo = {
      id: 4242,
      author: "mallory",
      authorType: "User",
      body: `Working on it… ${trackingMarker(jobId)}`,
      createdAt: "2025-01-01T00:00:00Z",
    };
    const github = {
      async listComments() {
        return { comments: [planted], total: 1 };
      },
    } as unknown as GitHubClient;
    const data: JobData = {
      jobId,
      deliveryId: "action-987654321-1",
      repo,
      number: 7,
      isPullRequest: false,
      trigger: { kind: "issue_comment", actor: "maintainer", commentId: 1, commentKind: "issue", instructions: "fix it" },
      enqueuedAt: "2025-01-01T00:00:00Z",
    } as JobData;
    const found = await resolveTrackingComment(github, data, undefined, new AbortController().signal, silentLogger);
    expect(found).not.toBe(planted.id);
  });
});
