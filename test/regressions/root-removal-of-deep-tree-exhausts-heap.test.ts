/**
 * Broken (red team of #20, third pass, removeTree as root): root empties a tree the agent could write
 * from each directory's descriptor (`removeBelow`), recursing once per level, and each level keeps
 * its own full display path (`path.join(where, name)`, kept for the error message) alive until the
 * levels below are done. The paths grow by one name a level, so the memory held is quadratic in the
 * depth: a tree the agent makes in a second (a `mkdir`/`cd` loop; no path is ever longer than one
 * name, so PATH_MAX does not stop it) of 1,500 directories with 250-character names held 400 MB of
 * heap while root removed it, and about 5,000 levels pass Node's default heap limit: the Tackle
 * process dies of OOM when it removes the checkout (every removal as root: a job's checkout,
 * worktree, home and tmp, in either sandbox mode). Here the removal runs in a child process with a
 * 128 MB heap, which aborted with an out-of-memory crash (exit 134) and left the tree behind; 21,000
 * levels of one-character names used up the descriptors (one held open a level).
 *
 * removeTree now walks the tree itself, as root and not, one directory open at a time, going back up
 * by "..", checked by the directory's identity: memory linear in the depth, two descriptors at most.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = process.getuid?.() === 0;
const here = path.dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), "deep-tree-"));

afterAll(() => {
  // rm -rf walks deep trees without holding every level (after a failure, a read-only tree may be left).
  spawnSync("chmod", ["-R", "u+rwx", "--", work]);
  spawnSync("rm", ["-rf", "--", work]);
});

/** Removes `tree` with removeTree in a child process whose heap and descriptors are limited. */
function removeInChild(tree: string, limits: { heapMb: number; descriptors: number }) {
  const script = path.join(work, "remove.mts");
  writeFileSync(
    script,
    `import { removeTree } from ${JSON.stringify(path.resolve(here, "../../src/workspace/fs-util.ts"))};\nawait removeTree(${JSON.stringify(tree)});\n`,
  );
  const tsx = createRequire(import.meta.url).resolve("tsx/cli");
  return spawnSync("bash", ["-c", `ulimit -n ${limits.descriptors} && exec "$0" "$@"`, process.execPath, tsx, script], {
    env: { ...process.env, NODE_OPTIONS: `--max-old-space-size=${limits.heapMb}` },
    encoding: "utf8",
    maxBuffer: 16 * 1024 * 1024,
  });
}

/** Makes `levels` nested directories named `name` under work/<top>, with a file at the bottom. */
function makeDeepTree(top: string, name: string, levels: number, mode: string): string {
  const made = spawnSync(
    "perl",
    [
      "-e",
      'my ($w, $t, $n, $k, $m) = @ARGV; chdir $w or die; mkdir $t or die; chdir $t or die; for (1..$k) { mkdir $n or die; chdir $n or die; } open(my $f, ">", "leaf") or die; close($f); if ($m eq "read-only") { for (1..$k) { chdir ".." or die; chmod 0555, $n or die; } }',
      work,
      top,
      name,
      String(levels),
      mode,
    ],
    { encoding: "utf8" },
  );
  expect(made.status, made.stderr).toBe(0);
  return path.join(work, top);
}

describe(`removeTree (as ${root ? "root" : "an unprivileged user"}) on a deep tree the agent made`, () => {
  it("uses memory that does not grow with the square of its depth", () => {
    const tree = makeDeepTree("long-names", "n".repeat(250), 1500, "writable");
    const run = removeInChild(tree, { heapMb: 128, descriptors: 1024 });
    expect(run.stderr.slice(-2000)).not.toMatch(/heap out of memory/i);
    expect(run.status).toBe(0);
    expect(existsSync(tree)).toBe(false);
  });

  it("holds a bounded number of descriptors, whatever the depth, and empties directories made read-only", () => {
    const tree = makeDeepTree("many-levels", "d", 3000, "read-only");
    const run = removeInChild(tree, { heapMb: 256, descriptors: 256 });
    expect(run.stderr.slice(-2000)).not.toMatch(/EMFILE|too many open files/i);
    expect(run.status).toBe(0);
    expect(existsSync(tree)).toBe(false);
  });
});
