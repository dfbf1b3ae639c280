import { describe, expect, it } from "vitest";
import { MAX_INSTRUCTIONS, mergeJobData } from "../../../src/jobs/merge-job-data.js";
import { jobDataSchema, type JobData } from "../../../src/jobs/job-data.js";

function job(actor: string, instructions: string | undefined, extra: Partial<JobData> = {}): JobData {
  return jobDataSchema.parse({
    jobId: `job-${actor}`,
    deliveryId: `delivery-${actor}`,
    repo: { owner: "o", name: "r" },
    number: 4,
    trigger: { kind: "issue_comment", actor, commentId: actor.length, commentKind: "issue", ...(instructions === undefined ? {} : { instructions }) },
    enqueuedAt: "2026-01-01T00:00:00.000Z",
    ...extra,
  });
}

describe("mergeJobData", () => {
  it("keeps the pending job's identity and appends each trigger as a section naming its actor", () => {
    const merged = mergeJobData(mergeJobData(job("alice", "fix the test"), job("bob", "also the docs")), job("carol", undefined));
    expect(merged.jobId).toBe("job-alice");
    expect(merged.deliveryId).toBe("delivery-alice");
    expect(merged.trigger.actor).toBe("alice");
    expect(merged.trigger.instructions).toBe(
      ["--- @alice (issue_comment) ---\nfix the test", "--- @bob (issue_comment) ---\nalso the docs", "--- @carol (issue_comment) ---\n(no instructions)"].join(
        "\n\n",
      ),
    );
    expect(merged.mergedTriggers).toEqual([
      { kind: "issue_comment", actor: "bob", commentId: 3, commentKind: "issue", deliveryId: "delivery-bob" },
      { kind: "issue_comment", actor: "carol", commentId: 5, commentKind: "issue", deliveryId: "delivery-carol" },
    ]);
    expect(jobDataSchema.parse(merged)).toEqual(merged);
  });

  it("keeps the pending tracking comment, or takes the newer one's when it has none", () => {
    expect(mergeJobData(job("a", "x", { trackingCommentId: 1 }), job("b", "y", { trackingCommentId: 2 })).trackingCommentId).toBe(1);
    expect(mergeJobData(job("a", "x"), job("b", "y", { trackingCommentId: 2 })).trackingCommentId).toBe(2);
  });

  it("stays within the schema's limit and says what it cut", () => {
    const merged = mergeJobData(job("alice", "a".repeat(40_000)), job("bob", `${"b".repeat(40_000)} the end`));
    const text = merged.trigger.instructions!;
    expect(text.length).toBeLessThanOrEqual(MAX_INSTRUCTIONS);
    expect(text).toMatch(/\[… \d+ characters cut to fit 65536 …\]/);
    expect(text.startsWith("--- @alice")).toBe(true);
    expect(text.endsWith("the end")).toBe(true);
    expect(() => jobDataSchema.parse(merged)).not.toThrow();
  });
});
