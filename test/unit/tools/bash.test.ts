import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { callTool, createHarness, type Harness } from "./helpers.js";

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.repo.cleanup();
});

describe("Bash", () => {
  it("runs in the repository root and reports the exit code", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "pwd && echo hi", description: "where am I" });
    expect(result.is_error).toBe(false);
    expect(result.content).toBe(`${h.repo.root}\nhi\n[exit code 0]`);
  });

  it("treats a non-zero exit as a normal result", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "echo oops >&2; exit 3" });
    expect(result.is_error).toBe(false);
    expect(result.content).toContain("oops");
    expect(result.content).toContain("[exit code 3]");
  });

  it("says when the command timed out", async () => {
    const started = Date.now();
    const result = await callTool(h.ctx, "Bash", { command: "sleep 5", timeout: 300 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(result.content).toContain("timed out after 300 ms");
  });

  it("refuses a timeout over the maximum, naming the unit", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "true", timeout: 900_000 });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("timeout is in milliseconds; 900000 ms exceeds the 600000 ms maximum");
  });

  it("where background commands are not offered (subagents), run_in_background says to run in the foreground", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "sleep 100", run_in_background: true });
    expect(result.is_error).toBe(true);
    expect(result.content).toContain("run the command in the foreground");
  });

  it("notes dropped output", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "head -c 3000000 /dev/zero | tr '\\0' a" });
    expect(result.content).toContain("2000000 more bytes of output were dropped");
  });

  it("says so when there is no output", async () => {
    const result = await callTool(h.ctx, "Bash", { command: "true" });
    expect(result.content).toBe("(no output)\n[exit code 0]");
  });
});
