// Broken (red team of #20, eleventh pass, protected paths): compile-path-pattern.ts › shapeProblemOf refuses
// a `.`/`..` segment or an empty one (`a//b`) only when written literally; the same segment spelled with
// glob syntax is accepted, and `matchesSomething` is true because some text matches. Measured: each entry
// below compiles (ok: true) and matches only `config/./keys`, `config/../keys` or `config//keys`, never
// a path git stores or the policy's normalized paths (`config/keys`, `config/x/keys` do not match): an
// entry that protects nothing in silence, where the doc says such an entry is a config error.
// What should hold: an entry no repository path can match is a problem in `.github/tackle.yml` (the
// shape is judged on what the machine accepts, not on the text as written), or the entry means the path.
// Fixed: an entry must match some real path, one without an empty, `.` or `..` segment (glob-machine.ts › reachesThroughRealPath), or it is a config problem.
import { describe, expect, it } from "vitest";
import { compilePathPattern } from "../../src/util/compile-path-pattern.js";

const ENTRIES = ["config/[.]/keys", "config/@(.|..)/keys", "config/[.][.]/keys", "config/\\/keys", "config/+(/)keys", "config/?(.)/keys"];

describe("protected_paths: dot and empty segments spelled as globs", () => {
  it.each(ENTRIES)("%s is refused or matches a real path", (entry) => {
    const compiled = compilePathPattern(entry);
    if (!compiled.ok) return;
    const real = ["config/keys", "config/x/keys", "config/a/b/keys", "keys"];
    expect(real.filter((path) => compiled.pattern.run(path, 1_000_000).matched)).not.toEqual([]);
  });
});
