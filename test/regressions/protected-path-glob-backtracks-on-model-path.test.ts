// A repository's `protected_paths` are picomatch globs the Tackle process tests against paths the model
// chooses: every Write and Edit, the targets of its commands, every file of a publish. picomatch makes each
// wildcard a lazy repetition (`*` is `[^/]*?`, `**` a repeated group over segments), so a path that fails
// is tried against every way of splitting it among the wildcards, on the host's event loop:
// `*.*.*.*.x` took 250 ms on one 250-character name, each more `*` multiplying that by about the name's
// length over the count (ten of them: days), and `**/a/**/a/**/a/**/x` took 37 s on `a/` × 600, a path
// the model writes with `mkdir -p`. Every job of the process, webhooks and the dashboard waited with it.
//
// Fixed in the one compiler of these globs, compilePathPattern: at most three wildcards of varying
// width (`*`, `**`, `*(…)`, `+(…)`, counting the `**/` a pattern without a slash starts with), at most
// two of them `**`; past that the pattern is a config problem naming the entry.
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

const config = (pattern: string) => `protected_paths:\n  - "${pattern}"\n`;

describe("protected path globs on the model's paths", () => {
  it.each(["*.*.*.*.*.*.*.*.*.*.x", "**/a/**/a/**/a/**/x", "x/*a*a*a*b", "+(a)+(b)+(c)+(d)", "*.*.x.*"])("the pattern %s is a config problem", (pattern) => {
    const parsed = parseRepoConfig(config(pattern));
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.problems.join("\n")).toMatch(/protected_paths.*wildcards of varying width|protected_paths.*more than 2 `\*\*`/s);
  });

  it.each(["**/*.test.*", "*.lock", "secrets/**/*.key", ".github/**", "config/*.{yml,yaml}", "env{1..3}/**", "a/[*]*/b"])(
    "the pattern %s is accepted",
    (pattern) => {
      expect(parseRepoConfig(config(pattern)).ok).toBe(true);
    },
  );
});
