/**
 * Broken (red team of #20, sandbox surface): with TACKLE_SANDBOX=off as root, commands run as uid
 * 65534 and see "whatever is world-readable" (docs/security-model.md). The checkout lives under
 * TACKLE_HOME, which must therefore be reachable by that uid (not under /root), and Tackle wrote its
 * transcripts there world-readable: a directory 0755 and files 0644. A job's `cat` read the transcript
 * of another repository's job — everything its model saw: private code, issue threads, tool output.
 *
 * So did the file job store (a server without REDIS_URL) with its records and artifacts.
 *
 * Transcripts and the file store's records are the operator's: their directories are 0700 and each
 * file 0600, also when a directory an older version made is found.
 */
import { chmodSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTranscript } from "../../src/agent/transcript.js";
import { createFileJobStore } from "../../src/jobs/file-job-store.js";
import { masked, maskedBytes } from "../fakes/masked.js";
import { createRepoCache, type Workspace } from "../../src/workspace/index.js";
import { isRoot, makeRemote, removeDir } from "../integration/workspace/helpers.js";

describe.runIf(isRoot)("TACKLE_SANDBOX=off as root, another job's transcript", () => {
  let home: string;
  let workspace: Workspace;

  beforeAll(async () => {
    // An operator's TACKLE_HOME outside /root, as off mode needs: root's, 0755.
    home = mkdtempSync(path.join(tmpdir(), "tackle-off-transcripts-"));
    chmodSync(home, 0o755);
    // A directory an older version made, as it made it.
    mkdirSync(path.join(home, "transcripts"), { mode: 0o755 });
    const other = await createTranscript({ dir: path.join(home, "transcripts"), jobId: "job-of-another-repository", model: "m" });
    await other.toolResults(1, [{ tool_use_id: "t1", content: "PRIVATE-CODE-OF-ANOTHER-REPOSITORY", is_error: false }] as never);
    await other.close();
    // Its record and artifact in the file job store (a server without REDIS_URL), made as an older version made them.
    mkdirSync(path.join(home, "jobs"), { mode: 0o755 });
    const store = createFileJobStore({ home });
    await store.record({
      jobId: "job-of-another-repository",
      repo: "other/private",
      number: 7,
      isPullRequest: false,
      trigger: "issue_assigned",
      actor: "alice",
      status: "done",
      enqueuedAt: new Date().toISOString(),
      summary: "PRIVATE-SUMMARY",
    } as never);
    await store.putArtifact("job-of-another-repository", {
      name: masked("notes.txt"),
      content: maskedBytes(Buffer.from("PRIVATE-ARTIFACT")),
      contentType: "text/plain",
    });
    await store.close();
    mkdirSync(path.join(home, "remote"));
    const remote = await makeRemote(path.join(home, "remote"));
    workspace = await createRepoCache({ home }).prepare({
      jobId: "job-off-transcripts",
      remoteUrl: remote.remote,
      repoKey: "github.com/acme/off-transcripts",
      branch: "tackle/issue-1",
      baseBranch: "main",
      startFrom: "base",
      allowedPushBranches: ["tackle/issue-1"],
      sandbox: "off",
    });
  });

  afterAll(async () => {
    await workspace?.dispose();
    removeDir(home);
  });

  it("cannot be read by the job's commands", async () => {
    const result = await workspace.exec.run(`cat ${home}/transcripts/*.jsonl ${home}/jobs/*.json ${home}/artifacts/*/*; id -u`, { timeoutMs: 30_000 });
    expect(result.output).toContain("65534");
    expect(result.output).not.toContain("PRIVATE");
  });
});
