// The Action runs the committed dist/action.js as is: a source change without a rebuild would ship
// stale code. The same build into a temp directory must give the committed bytes. `npm test` rebuilds
// dist/ first, so "committed" is git's copy (the index: what the next commit holds), not the file.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../../..");
const BUNDLE = "dist/action.js";

/** Git's copy of the bundle; the file itself where git does not track it (yet), as in a source tarball. */
async function committedBundle(): Promise<Buffer> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("GIT_")));
  try {
    await run("git", ["ls-files", "--error-unmatch", BUNDLE], { cwd: root, env });
    const { stdout } = await run("git", ["cat-file", "blob", `:${BUNDLE}`], { cwd: root, env, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 });
    return stdout;
  } catch {
    return readFile(path.join(root, BUNDLE));
  }
}

describe("dist/action.js", () => {
  it("is what scripts/build.mjs builds from the current sources (run `npm run build` and commit it)", async () => {
    const outdir = await mkdtemp(path.join(os.tmpdir(), "tackle-build-"));
    try {
      // From another directory: the output must not depend on where the build runs.
      await run(process.execPath, [path.join(root, "scripts/build.mjs"), "--outdir", outdir], { cwd: os.tmpdir(), timeout: 120_000 });
      const rebuilt = await readFile(path.join(outdir, "action.js"));
      const committed = await committedBundle();
      expect(rebuilt.equals(committed), "dist/action.js is stale: run `npm run build`, then `git add dist/action.js`").toBe(true);
      // Reproducible anywhere: no absolute path of this checkout.
      expect(rebuilt.includes(root)).toBe(false);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  });
});
