/**
 * Grep and Glob with ripgrep in the job's sandbox run without the registry's pause (it would hold
 * ripgrep too), but the host still looks at their `path`: that must happen in the job's pause, or a
 * background command swapping a directory for a symlink tells the model whether a host path exists
 * (red team, fifth pass). They look through the one guarded reader, which pauses the job itself;
 * the search, after it, runs outside the pause. The guard's pause is recorded.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createPathGuard } from "../../../src/workspace/index.js";
import { callTool, createHarness, type Harness } from "./helpers.js";

describe("Grep and Glob when ripgrep runs in the sandbox", () => {
  let h: Harness;
  const seen: string[] = [];
  let paused = false;

  beforeEach(async () => {
    h = await createHarness();
    mkdirSync(path.join(h.repo.root, "src", "deep"), { recursive: true });
    seen.length = 0;
    const search = h.ctx.search;
    h.ctx = {
      ...h.ctx,
      fs: createPathGuard(h.repo.root, {
        async pausing<T>(task: () => Promise<T>): Promise<T> {
          paused = true;
          try {
            const result = await task();
            seen.push("path checked paused");
            return result;
          } finally {
            paused = false;
          }
        },
      }),
      search: {
        onHost: false,
        ripgrep: (args, options) => {
          seen.push(`ripgrep ${paused ? "paused" : "running"}`);
          return search.ripgrep(args, options);
        },
      },
    };
  });

  afterEach(async () => {
    await h.repo.cleanup();
  });

  it.each([
    ["Grep", { pattern: "x", path: "src" }],
    ["Glob", { pattern: "*.ts", path: "src" }],
  ])("%s checks its path in the pause and searches after it", async (tool, input) => {
    const result = await callTool(h.ctx, tool, input);
    expect(result.is_error).not.toBe(true);
    expect(seen.slice(-2)).toEqual(["path checked paused", "ripgrep running"]);
  });

  it("Glob says a path that is no directory is none, from inside the pause", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "*", path: "README.md" });
    expect(result.content).toContain("is not a directory");
    expect(seen).toEqual(["path checked paused"]);
  });

  it("Glob says a path that does not exist does not, from inside the pause", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "*", path: "nope" });
    expect(result.content).toBe("nope does not exist; give a directory as path.");
    expect(seen).toEqual(["path checked paused"]);
  });
});
