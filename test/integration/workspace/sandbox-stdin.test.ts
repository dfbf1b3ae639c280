/**
 * ExecOptions.input: a skill tool's command gets its JSON input on stdin, which is then closed;
 * without `input`, stdin is not a pipe the command could wait on. Under bubblewrap and with the
 * sandbox off (as the sandbox identity when the tests run as root).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandboxExec, detectSandbox, type Sandbox, type SandboxMode } from "../../../src/workspace/index.js";
import { removeDir, tempDir } from "./helpers.js";

const support = await detectSandbox();
const modes: SandboxMode[] = support.available ? ["bwrap", "off"] : ["off"];

describe.each(modes)("stdin of sandboxed commands (%s)", (mode) => {
  let root: string;
  let sandbox: Sandbox;

  beforeAll(() => {
    root = tempDir(`stdin-${mode}`, { sandboxWritable: true });
    sandbox = createSandboxExec({ root, mode });
  });
  afterAll(() => removeDir(root));

  it("writes `input` to the command's stdin and closes it", async () => {
    const input = JSON.stringify({ files: ["a.ts", "b c.ts"], note: 'it\'s "quoted"\nand multi-line' });
    const result = await sandbox.run("cat > got.json; wc -c < got.json; echo closed", { timeoutMs: 30_000, input });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(0);
    expect(result.output.trim().split("\n")).toEqual([String(Buffer.byteLength(input)), "closed"]);
    const echoed = await sandbox.run("cat got.json", { timeoutMs: 30_000 });
    expect(JSON.parse(echoed.output)).toEqual(JSON.parse(input));
  });

  it("carries a large input whole, and a command that never reads it still finishes", async () => {
    const input = "x".repeat(3 * 1024 * 1024);
    const counted = await sandbox.run("wc -c", { timeoutMs: 60_000, input });
    expect(counted.output.trim()).toBe(String(input.length));
    const ignored = await sandbox.run("echo did not read", { timeoutMs: 60_000, input });
    expect(ignored).toMatchObject({ exitCode: 0, timedOut: false });
    expect(ignored.output.trim()).toBe("did not read");
  });

  it("without input, stdin is empty and closed: a command reading it does not wait", async () => {
    const result = await sandbox.run("cat; echo end-of-stdin", { timeoutMs: 30_000 });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.output.trim()).toBe("end-of-stdin");
  });

  it("an empty input is an empty, closed stdin", async () => {
    const result = await sandbox.run("wc -c", { timeoutMs: 30_000, input: "" });
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.output.trim()).toBe("0");
  });
});
