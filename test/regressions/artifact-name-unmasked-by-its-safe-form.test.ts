// An artifact's name was masked and then made safe for paths and headers (safeArtifactName turns every
// character outside `A-Za-z0-9._ -` into `_`). A secret holding `_` (an operator's `TACKLE_SECRET_…`
// value that an MCP server's environment exposed to the agent) written with another character in its
// place did not match by value when it was masked, and became the secret itself once made safe: the
// store kept it, and the dashboard and the Action's step summary showed it.
//
// Fix: the store takes only a masked name (NewArtifact.name is `Masked`); the safe form is masked again.
import { describe, expect, it } from "vitest";
import type { JobData } from "../../src/jobs/job-data.js";
import type { JobStore, NewArtifact } from "../../src/jobs/job-store.js";
import { silentLogger } from "../../src/logging/logger.js";
import { createRedactor } from "../../src/util/redact.js";
import { startJobRecording } from "../../src/worker/job-recording.js";

const SECRET = "infra_token_4b7e9d2a1c";
const data: JobData = {
  jobId: "octo-widgets-7-d1",
  deliveryId: "d1",
  repo: { owner: "octo", name: "widgets" },
  number: 7,
  isPullRequest: false,
  trigger: { kind: "issue_assigned", actor: "alice" },
  enqueuedAt: "2026-12-01T10:00:00.000Z",
};

describe("an artifact's name that becomes a secret once made safe", () => {
  it("is stored and shown masked", async () => {
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
    const recording = startJobRecording({ store, data, attempt: 1, clock: Date.now, log: silentLogger, redact: createRedactor([SECRET]), dashboardUrl: null });
    for (const disguise of ["infra!token!4b7e9d2a1c", "infra#token%4b7e9d2a1c"]) {
      const info = await recording.artifacts.upload({ name: `${disguise}.txt`, content: Buffer.from("report\n") }, new AbortController().signal);
      expect(info.name).not.toContain(SECRET);
    }
    for (const artifact of stored) expect(artifact.name).not.toContain(SECRET);
  });
});
