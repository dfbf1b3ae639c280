/**
 * Broken (red team of #20, sixth pass, bounded YAML): `parseBoundedYaml` bounds a repository's YAML by
 * its count of keys and values (5,000, counted over the lexer's tokens first: at most 10,000 value
 * tokens), not by its depth. A block sequence nested on one line, `- - - … - x` (9,990 dashes, 20 KB,
 * under the token count), is composed by the yaml library recursively, one set of frames per level,
 * so the composer runs out of stack. The first time that is caught ("Maximum call stack size
 * exceeded", an invalid config). The second time (the same `.github/tackle.yml` read again: the next
 * event, the next job, or agent/skill front matter) V8 compiles a regular expression of the library's
 * scalar resolution (its bytecode tier-up) at the bottom of that exhausted stack, and the compiler's
 * failure is not an exception: `FATAL ERROR: RegExpCompiler Allocation failed - process out of memory`,
 * and the whole Tackle process aborts (every job it runs, the webhook server with it). Measured here:
 * `parseBoundedYaml(deep)` twice in one process (or a flow-nested `[[[…]]]` then `deep`) aborts it;
 * once, or after an ordinary document, it does not; `parseRepoConfig(deep)` (`.github/tackle.yml`)
 * aborts it on the second call the same way. The webhook side reads `.github/tackle.yml` from the
 * default branch on each event (`readTriggerConfig` → `parseRepoConfig`), so a repository that commits
 * this 20 KB file and then opens two issues aborts `tackle server` itself.
 *
 * What should hold: a repository's YAML nested past a bound is refused before the library composes it
 * (its depth counted over the lexer's tokens, as its size is), so no parse runs out of stack at all;
 * reading it any number of times answers "refused" and the process goes on.
 *
 * While this is broken the test's worker dies ("Worker exited unexpectedly" / a fatal error): that is
 * the failure.
 *
 * Fix: `parseBoundedYaml` feeds the lexer's tokens to the yaml library's CST parser one at a time and
 * counts the open collections on its stack after each; past MAX_YAML_DEPTH (64) levels the text is
 * refused ("nests lists and mappings more than 64 levels deep", with the line) before the composer
 * runs, with at most 65 levels of recursion run.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseBoundedYaml } from "../../src/config/parse-bounded-yaml.js";

const deepBlock = `${"- ".repeat(9990)}x`;
const deepFlow = `${"[".repeat(9990)}${"]".repeat(9990)}`;
const repoRoot = path.resolve(import.meta.dirname, "../..");

describe("a repository YAML nested thousands of levels deep", () => {
  it("read three times in one process, answers each time and the process goes on", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "deep-yaml-"));
    try {
      const script = path.join(dir, "parse-three-times.ts");
      writeFileSync(
        script,
        [
          `import { parseBoundedYaml } from ${JSON.stringify(path.join(repoRoot, "src/config/parse-bounded-yaml.ts"))};`,
          `const deep = ${JSON.stringify(deepBlock)};`,
          "for (let i = 0; i < 3; i += 1) console.log(parseBoundedYaml(deep).kind);",
          'console.log("still running");',
        ].join("\n"),
      );
      const child = spawnSync(process.execPath, ["--import", "tsx", script], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
      expect(child.stderr).not.toContain("FATAL ERROR");
      expect(child.stdout).toContain("still running");
      expect(child.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is refused for its depth before it is composed", () => {
    for (const text of [deepFlow, deepBlock]) expect(parseBoundedYaml(text).kind).toBe("refused");
  });
});
