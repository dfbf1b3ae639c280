// A repository's `protected_paths` are picomatch globs the Tackle process tests against paths the model
// chooses: every Write and Edit, the targets of its commands, every file of a publish. picomatch makes each
// wildcard a lazy repetition (`*` is `[^/]*?`, `**` a repeated group over segments), so a path that fails
// is tried against every way of splitting it among the wildcards, on the host's event loop:
// `*.*.*.*.x` took 250 ms on one 250-character name, each more `*` multiplying that by about the name's
// length over the count (ten of them: days), and `**/a/**/a/**/a/**/x` took 37 s on `a/` × 600, a path
// the model writes with `mkdir -p`. Every job of the process, webhooks and the dashboard waited with it.
//
// Fixed again (tenth pass): protected_paths are matched by the host's own glob machine (src/util/glob-machine.ts),
// a state set run over the path once, so no entry backtracks; the counting of wildcards and ways is gone, and
// the pattern is accepted and answered in time linear in the path (create-path-matcher.ts bounds a list's size and steps).
import { describe, it } from "vitest";
import { expectAnsweredInLinearTime } from "./protected-path-attack.js";

describe("protected path globs on the model's paths", () => {
  it.each([
    ["*.*.*.*.*.*.*.*.*.*.x", `d/${"a.".repeat(125)}`, false],
    ["**/a/**/a/**/a/**/x", `${"a/".repeat(600)}y`, false],
    ["x/*a*a*a*b", `x/${"a".repeat(250)}`, false],
    ["+(a)+(b)+(c)+(d)", `${"a".repeat(100)}${"b".repeat(100)}${"c".repeat(55)}`, false],
    ["*.*.x.*", `d/${".".repeat(250)}`, false],
  ] as const)("%s is tested on the attack's path in linear time", async (pattern, path, expected) => {
    await expectAnsweredInLinearTime(pattern, path, expected);
  });
});
