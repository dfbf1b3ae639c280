// Aliases in a repository's YAML (`.github/tackle.yml`, agent and skill front matter) were resolved by the
// yaml library's `toJS` with its guard `maxAliasCount` on. That guard, on the first use of each anchor,
// measures the anchored node, and for every alias inside it searches the whole document again
// (Alias.resolve without a cache): quadratic in the aliases. Nothing else bounded them: the guard counts
// uses per anchor, not anchors, and the key count did not matter (the keys here are list items).
//
// A file of anchors that each hold an alias, each used once (`- &s0 x`, `- &b0 [*s0]`, `- *b0`, …):
// measured 1,000 triples 2.7 s, 2,000 triples 11 s (loaded 2-core host); the 1 MB that GitHub's contents
// API returns holds ~25,000, half an hour on the event loop every job and webhook shares.
//
// No clock: on the code before, each case takes minutes, past the test's timeout.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { parseFrontMatter } from "../../src/config/parse-front-matter.js";

function anchorsWithAliases(maxChars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < maxChars; i += 1) {
    const triple = `- &s${i} x\n- &b${i} [*s${i}]\n- *b${i}\n`;
    lines.push(triple);
    size += triple.length;
  }
  return lines.join("");
}

describe("YAML of very many anchors and aliases", () => {
  it("as .github/tackle.yml: answered at once with a problem", () => {
    const parsed = parseRepoConfig(`setup:\n${anchorsWithAliases(1_000_000)}`);
    expect(parsed).toEqual({ ok: false, problems: ["the file uses more than 100 aliases (`*name`); Tackle reads no more"] });
  });

  it("as an agent's front matter: answered at once with a problem", () => {
    const front = parseFrontMatter(`---\nname: a\ndescription: a\ntools:\n${anchorsWithAliases(250_000)}---\nbody\n`);
    expect(front).toEqual({ kind: "invalid", problem: "the front matter uses more than 100 aliases (`*name`); Tackle reads no more" });
  });
});
