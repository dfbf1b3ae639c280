// What the job store holds is what the job already redacted (README, "Where it is stored"): an
// artifact's content and description went through the job's redactor before `putArtifact`, but its
// name did not. The agent chooses the file's name, so a token's shape or a job secret in it was stored
// and shown as it was on the dashboard (the job's page and the download's file name), and in the
// Action's artifact directory and step summary.
//
// Fix: the name goes through the redactor too, before it is made safe.
import { describe, expect, it } from "vitest";
import type { JobData } from "../../src/jobs/job-data.js";
import type { JobStore, NewArtifact } from "../../src/jobs/job-store.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createRedactor } from "../../src/util/redact.js";
import { startJobRecording } from "../../src/worker/job-recording.js";

const data: JobData = {
  jobId: "octo-widgets-7-d1",
  deliveryId: "d1",
  repo: { owner: "octo", name: "widgets" },
  number: 7,
  isPullRequest: false,
  trigger: { kind: "issue_assigned", actor: "alice" },
  enqueuedAt: "2026-12-01T10:00:00.000Z",
};
const GITHUB_TOKEN = `ghp_${"aB3dE6gH9k".repeat(4).slice(0, 36)}`;

describe("an artifact's name", () => {
  it("is stored masked, like its content and description", async () => {
    const stored: NewArtifact[] = [];
    const store = {
      kind: "file",
      record: async () => undefined,
      appendTranscript: async () => undefined,
      putArtifact: async (_jobId: string, artifact: NewArtifact) => {
        stored.push(artifact);
        return { id: "a1", name: artifact.name, bytes: artifact.content.length, contentType: artifact.contentType, createdAt: "2026-12-01T10:00:00.000Z" };
      },
    } as unknown as JobStore;
    const recording = startJobRecording({
      store,
      data,
      attempt: 1,
      clock: Date.now,
      log: silentLogger,
      redact: createRedactor(["hush-hush-secret"]),
      dashboardUrl: null,
    });
    const info = await recording.artifacts.upload(
      { name: `${GITHUB_TOKEN}-hush-hush-secret.txt`, content: Buffer.from("report\n") },
      new AbortController().signal,
    );
    expect(stored[0]?.name).not.toContain(GITHUB_TOKEN);
    expect(stored[0]?.name).not.toContain("hush-hush-secret");
    expect(stored[0]?.name).toMatch(/\.txt$/);
    expect(info.name).not.toContain(GITHUB_TOKEN);
  });
});
