import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildJobTools } from "../../../src/agent/build-job-tools.js";
import { NO_REPO_EXTENSIONS } from "../../../src/config/repo-extensions.js";
import { createFileJobStore } from "../../../src/jobs/file-job-store.js";
import type { JobStore } from "../../../src/jobs/job-store.js";
import { createPolicyEngine, createToolRegistry, denyingApprovalHandler, type ToolCall, type ToolContext } from "../../../src/agent/tools/index.js";
import { reportToIssueTool } from "../../../src/agent/tools/report-to-issue.js";
import { uploadArtifactTool, MAX_ARTIFACT_BYTES } from "../../../src/agent/tools/upload-artifact.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { createRedactor } from "../../../src/util/redact.js";
import { startJobRecording } from "../../../src/worker/job-recording.js";
import { createHarness, type Harness } from "./helpers.js";

const SECRET = "canary-secret-value-0123456789";
const JOB = "octo-widgets-7-d1";

let h: Harness;
let home: string;
let store: JobStore;
beforeEach(async () => {
  h = await createHarness();
  home = await mkdtemp(path.join(os.tmpdir(), "tackle-artifacts-"));
  store = createFileJobStore({ home });
  const recording = startJobRecording({
    store,
    data: {
      jobId: JOB,
      deliveryId: "d1",
      repo: { owner: "octo", name: "widgets" },
      number: 7,
      isPullRequest: false,
      trigger: { kind: "issue_assigned", actor: "alice" },
      enqueuedAt: new Date().toISOString(),
    },
    attempt: 1,
    clock: Date.now,
    log: silentLogger,
    redact: createRedactor([SECRET]),
    dashboardUrl: "https://tackle.example/dashboard",
  });
  h.ctx = { ...h.ctx, artifacts: recording.artifacts };
});
afterEach(async () => {
  await store.close();
  await h.repo.cleanup();
  await rm(home, { recursive: true, force: true });
});

async function call(ctx: ToolContext, name: string, input: unknown) {
  const registry = createToolRegistry([uploadArtifactTool, reportToIssueTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler });
  const [result] = await registry.runCalls([{ id: "c1", name, input } satisfies ToolCall], ctx);
  return result!;
}

describe("UploadArtifact", () => {
  it("stores a worktree file with its description, masked, and returns its id and the dashboard's link", async () => {
    await h.repo.write("out/report.md", `# Report\nkey: ${SECRET}\n`);
    const result = await call(h.ctx, "UploadArtifact", { file_path: "out/report.md", description: "the findings" });
    expect(result).toEqual({
      tool_use_id: "c1",
      is_error: false,
      content: "Uploaded out/report.md as artifact a1, 25 bytes (https://tackle.example/dashboard/jobs/octo-widgets-7-d1/artifacts/a1).",
    });
    const stored = await store.readArtifact(JOB, "a1");
    expect(stored?.meta).toMatchObject({ id: "a1", name: "report.md", description: "the findings", contentType: "text/markdown" });
    expect(stored?.content.toString()).toBe("# Report\nkey: [REDACTED]\n");
    // ReportToIssue links what was uploaded.
    const posted = await call(h.ctx, "ReportToIssue", { body: "Done.", artifact_ids: ["a1"] });
    expect(posted.is_error).toBe(false);
    expect(h.issue.reports[0]).toContain("- [report.md (a1)](https://tackle.example/dashboard/jobs/octo-widgets-7-d1/artifacts/a1)");
  });

  it("keeps a binary file byte for byte, and refuses one that holds a secret", async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe, 0x01]);
    await writeFile(path.join(h.repo.root, "shot.png"), png);
    expect((await call(h.ctx, "UploadArtifact", { file_path: "shot.png" })).is_error).toBe(false);
    expect((await store.readArtifact(JOB, "a1"))?.content.equals(png)).toBe(true);

    await writeFile(path.join(h.repo.root, "leak.bin"), Buffer.concat([png, Buffer.from(SECRET)]));
    const refused = await call(h.ctx, "UploadArtifact", { file_path: "leak.bin" });
    expect(refused).toMatchObject({ is_error: true, content: "the file holds a secret of this job or something shaped like a token; it was not uploaded" });
    expect((await store.get(JOB))?.artifacts.map((a) => a.id)).toEqual(["a1"]);
  });

  it("refuses a file over 5 MB, a missing file, a directory, and a path outside the worktree", async () => {
    await writeFile(path.join(h.repo.root, "big.log"), Buffer.alloc(MAX_ARTIFACT_BYTES + 1, 0x61));
    expect(await call(h.ctx, "UploadArtifact", { file_path: "big.log" })).toMatchObject({
      is_error: true,
      content: "big.log is over 5 MB; upload a smaller file.",
    });
    expect(await call(h.ctx, "UploadArtifact", { file_path: "nope.txt" })).toMatchObject({
      is_error: true,
      content: "nope.txt does not exist; use Glob to find files.",
    });
    await h.repo.write("dir/a.txt", "a");
    expect(await call(h.ctx, "UploadArtifact", { file_path: "dir" })).toMatchObject({ is_error: true, content: "dir is not a regular file." });
    await symlink("/etc/passwd", path.join(h.repo.root, "passwd"));
    const outside = await call(h.ctx, "UploadArtifact", { file_path: "passwd" });
    expect(outside.is_error).toBe(true);
    expect((await store.get(JOB))?.artifacts ?? []).toEqual([]);
  });

  it("asks before uploading a credentials file (the reads effect), which nobody approves here", async () => {
    await h.repo.write(".env", "TOKEN=x\n");
    const result = await call(h.ctx, "UploadArtifact", { file_path: ".env" });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("Not approved");
  });

  it("writes the file under the store's artifact directory, named by id and safe base name", async () => {
    await h.repo.write("weird name;$(x).txt", "hello");
    await call(h.ctx, "UploadArtifact", { file_path: "weird name;$(x).txt" });
    expect(await readdir(path.join(home, "artifacts", JOB))).toEqual(["a1-weird name___x_.txt"]);
    expect(await readFile(path.join(home, "artifacts", JOB, "a1-weird name___x_.txt"), "utf8")).toBe("hello");
  });
});

describe("the job's tool list", () => {
  const tools = (artifacts: boolean) =>
    buildJobTools({ repo: "o/r", branch: "b", extensions: NO_REPO_EXTENSIONS, web: true, memory: true, mcp: true, background: true, artifacts });

  it("appends UploadArtifact last for the main agent, and never offers it to subagents", () => {
    const names = tools(true).main.map((tool) => tool.name);
    expect(names.at(-1)).toBe("UploadArtifact");
    expect(names.slice(0, -1)).toEqual(tools(false).main.map((tool) => tool.name));
    expect(tools(true).subagentTools.has("UploadArtifact")).toBe(false);
  });

  it("keeps its definition within 200 tokens (about 4 characters a token)", () => {
    const registry = createToolRegistry([uploadArtifactTool], { policy: createPolicyEngine(), approval: denyingApprovalHandler });
    const definition = JSON.stringify(registry.definitions()[0]);
    expect(definition.length / 4).toBeLessThanOrEqual(200);
  });
});
