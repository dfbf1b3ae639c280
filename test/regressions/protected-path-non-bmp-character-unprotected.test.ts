// Broken (red team of #20, tenth pass, protected_paths glob machine): the machine reads a path as UTF-16
// code units (glob-machine.ts › Machine.run: `text.charCodeAt(i)`; classSet › memberAt), so a character
// outside the BMP (an emoji, a CJK extension letter) is two "characters" to it. `?` matches half of one,
// and a class naming one (`[🔑🗝]`) holds its two surrogates as separate members and matches one unit.
// So `secrets/[🔑🗝].pem` is accepted by parseRepoConfig (matchesSomething: a lone surrogate, which no
// UTF-8 path from git or the file system can hold) yet protects neither `secrets/🔑.pem` nor
// `secrets/🗝.pem`; `docs/?.md` (bash, git and gitignore: one character) leaves `docs/😀.md` writable.
//
// What should hold: `?`, `*`'s characters and a class's members are code points (a surrogate pair is one
// character), as in bash and git in a UTF-8 locale; or an entry with a character outside the BMP in a
// class is refused as a config problem, not accepted while matching no real path.
// Fixed: the glob machine reads paths and patterns by code point (glob-machine.ts › pointAt).
import { describe, expect, it } from "vitest";
import { createProtectedPaths } from "../../src/agent/policy/protected-paths.js";
import { parseRepoConfig } from "../../src/config/index.js";

describe("a protected path glob and characters outside the BMP", () => {
  it.each([
    ["secrets/[🔑🗝].pem", "secrets/🔑.pem"],
    ["secrets/[🔑🗝].pem", "secrets/🗝.pem"],
    ["docs/?.md", "docs/😀.md"],
    ["l10n/[!a-z].json", "l10n/𝔸.json"],
  ])("%s, if accepted, protects %s", (pattern, path) => {
    if (!parseRepoConfig(`protected_paths:\n  - ${JSON.stringify(pattern)}\n`).ok) return;
    expect(createProtectedPaths([pattern]).matches(path)).toBe(true);
  });
});
