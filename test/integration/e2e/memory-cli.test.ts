// `tackle memory` through the built bin: the dispatch, the help, the exit codes, over a real TACKLE_HOME.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { runCli, shellEnv } from "./cli-process.js";
import { maskedMemory } from "../../fakes/masked.js";

let home: string;
beforeAll(async () => {
  home = await mkdtemp(path.join(tmpdir(), "tackle-memory-bin-"));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("tackle memory (the bin)", () => {
  it("is listed in --help and has its own help", async () => {
    const env = shellEnv(home, {});
    const usage = await runCli(["--help"], { env });
    expect(usage.code).toBe(0);
    expect(usage.stdout).toContain("tackle memory list|show|delete --repo OWNER/NAME");
    const help = await runCli(["memory", "--help"], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("tackle memory show NAME --repo OWNER/NAME");
    expect(help.stdout).toContain("REDIS_URL");
  });

  it("lists, shows and deletes what a job stored under TACKLE_HOME; exit 1 for an unknown name, 2 for a bad --repo", async () => {
    const tackleHome = path.join(home, "state");
    const store = createMemoryStore({ home: tackleHome, logger: silentLogger });
    // As a job leaves it: the memory under the repository's id, and the name it had noted beside.
    await store.recordName("github.com", "octo/widgets", 1296269);
    await store.put(
      "github.com/1296269",
      maskedMemory({
        name: "build",
        description: "how to build",
        content: "make all",
        jobId: "job-1",
        actor: "alice",
        updatedAt: "2025-01-02T03:04:05.000Z",
      }),
    );
    const env = shellEnv(home, { TACKLE_HOME: tackleHome });
    const list = await runCli(["memory", "list", "--repo", "octo/widgets"], { env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/build\s+how to build\s+2025-01-02T03:04:05.000Z\s+job-1\s+alice/);
    expect(await runCli(["memory", "show", "build", "--repo", "octo/widgets"], { env })).toEqual({ code: 0, stdout: "make all\n", stderr: "" });
    const deleted = await runCli(["memory", "delete", "build", "--repo", "octo/widgets"], { env });
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain('Deleted memory "build"');
    const gone = await runCli(["memory", "show", "build", "--repo", "octo/widgets"], { env });
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('has no memory "build"');
    const bad = await runCli(["memory", "list", "--repo", "octo"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("Usage:");
  });
});
