// Broken (red team of #20, thirteenth pass, repository YAML): `parseBoundedYaml`
// (src/config/parse-bounded-yaml.ts › duplicateKeys) finds duplicate keys only among *scalar* keys
// (`if (!isScalar(key)) continue`), with the yaml library's own check off. A key written as an alias
// (`*k :`, the anchor `&k blocked_commands` planted in a list value) is an Alias node, so it is
// skipped; `toJS` then resolves it to `blocked_commands` and the later value silently replaces the
// earlier one. Measured: `blocked_commands: [ &k blocked_commands, curl ]` then `*k : [ ls ]` parses
// as ok with blocked_commands = ["ls"]: the `curl` a reviewer of the file sees is not blocked, and no
// problem is reported. The same holds in agent and skill front matter.
// What should hold: a mapping that gives one key twice, however the key is written (plain, quoted,
// tagged or as an alias), is a config problem ("Map keys must be unique"), as the security model says.
// Fixed: a key written as an alias is read as the scalar it names when duplicates are looked for, once the walk is done (parse-bounded-yaml.ts › duplicateKeys).
import { describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";

describe("duplicate keys in .github/tackle.yml", () => {
  it("a key given again as an alias is a problem, not a silent replacement", () => {
    const parsed = parseRepoConfig("blocked_commands: [ &k blocked_commands, curl ]\n*k : [ ls ]\n");
    expect(parsed.ok).toBe(false);
  });

  it("a key given again plainly is still refused", () => {
    expect(parseRepoConfig('blocked_commands: [ curl ]\n"blocked_commands": [ ls ]\n').ok).toBe(false);
  });
});
