/**
 * Grep and Glob with ripgrep in the job's sandbox run without the registry's pause (it would hold
 * ripgrep too), but the host still resolves their `path` (and Glob stats it) with the real path
 * guard: that part must run inside the job's pause, or a background command swapping a directory
 * for a symlink tells the model whether a host path exists (red team, fifth pass). The search, after
 * it, must run outside the pause. The pause is recorded around the harness's own ports.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FsPort } from "../../../src/agent/ports.js";
import { callTool, createHarness, type Harness } from "./helpers.js";

describe("Grep and Glob when ripgrep runs in the sandbox", () => {
  let h: Harness;
  const seen: string[] = [];
  let paused = false;

  beforeEach(async () => {
    h = await createHarness();
    mkdirSync(path.join(h.repo.root, "src", "deep"), { recursive: true });
    seen.length = 0;
    const fs = h.ctx.fs;
    const search = h.ctx.search;
    const resolving: FsPort = Object.assign(Object.create(fs) as FsPort, {
      resolve: (p: string, mode: "read" | "write") => {
        seen.push(`resolve ${paused ? "paused" : "running"}`);
        return fs.resolve(p, mode);
      },
    });
    h.ctx = {
      ...h.ctx,
      fs: resolving,
      exec: {
        ...h.ctx.exec,
        async pausing<T>(task: () => Promise<T>): Promise<T> {
          paused = true;
          try {
            return await task();
          } finally {
            paused = false;
          }
        },
      },
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
  ])("%s resolves its path in the pause and searches after it", async (tool, input) => {
    const result = await callTool(h.ctx, tool, input);
    expect(result.is_error).not.toBe(true);
    // The policy may resolve the path first (its check runs unpaused, and decides only allow or deny).
    expect(seen.slice(-2)).toEqual(["resolve paused", "ripgrep running"]);
  });

  it("Glob says a path that is no directory is none, from inside the pause", async () => {
    const result = await callTool(h.ctx, "Glob", { pattern: "*", path: "README.md" });
    expect(result.content).toContain("is not a directory");
    expect(seen).toEqual(["resolve paused"]);
  });
});
