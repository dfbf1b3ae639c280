import { copyFileSync, readFileSync, chownSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createSandboxExec, type Sandbox } from "../../src/workspace/index.js";
import { tempDir } from "../integration/workspace/helpers.js";

const DELTA = process.env.DELTA ?? "0.012";
const SLEEPERS = Number(process.env.SLEEPERS ?? "900");

describe("scratch", () => {
  it("resurrect", async () => {
    const root = tempDir("rt", { sandboxWritable: true });
    const tmp = tempDir("rt-tmp", { sandboxWritable: true });
    copyFileSync("/tmp/rt/attack.pl", path.join(root, "attack.pl"));
    const sandbox: Sandbox = createSandboxExec({ root, mode: "bwrap", jobNamespace: true, tmpDir: tmp });
    let out = "";
    if (SLEEPERS > 0) {
      await sandbox.start!(["bash", "-c", `for i in $(seq ${SLEEPERS}); do sleep 1000 & done; echo up; wait`], { onStdout: (c) => (out += c) });
      while (!out.includes("up")) await new Promise((r) => setTimeout(r, 50));
    }
    await sandbox.start!(["perl", "attack.pl", DELTA], { onStdout: (c) => (out += c) });
    while (!out.includes("go")) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    const ticks = () => readFileSync(path.join(root, "ticks"), "utf8").length;
    const tally = { escaped: 0, held: 0, failed: 0 };
    const errors: string[] = [];
    for (let i = 0; i < 60; i++) {
      try {
        const grew = await sandbox.pausing!(async () => {
          const a = ticks();
          await new Promise((r) => setTimeout(r, 100));
          return ticks() - a;
        });
        if (grew > 0) tally.escaped++;
        else tally.held++;
      } catch (e) {
        tally.failed++;
        errors.push(String(e));
      }
      await new Promise((r) => setTimeout(r, 30));
    }
    console.log(DELTA, SLEEPERS, tally, errors.slice(0, 2));
    await sandbox.dispose();
  }, 300_000);
});
