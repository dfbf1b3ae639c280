// A skill's front matter may alias a node inside itself (`input_schema: &s {properties: {a: *s}}`): the
// yaml library then gives a data structure that contains itself, and the check of a tool's input schema
// (parseSkillDefinition › schemaProblem) follows `properties` into it without end. The stack overflowed
// and the RangeError left parseRepoExtensions, so the job failed with an internal error instead of a reply
// naming the file; the same structure sent on as a tool's schema could not even be serialized.
import { describe, expect, it } from "vitest";
import { parseRepoExtensions } from "../../src/config/parse-repo-extensions.js";

describe("a skill whose tool schema aliases itself", () => {
  it("is a problem naming the file and the alias's line, not a stack overflow", () => {
    const content = [
      "---", // 1
      "name: s", // 2
      "description: A skill.", // 3
      "tools:", // 4
      "  - name: t", // 5
      "    description: T.", // 6
      "    command: run.sh", // 7
      "    input_schema: &s", // 8
      "      type: object", // 9
      "      properties:", // 10
      "        a: *s", // 11
      "---",
      "Use it.",
    ].join("\n");
    const files = [
      { path: ".tackle/skills/s/SKILL.md", content },
      { path: ".tackle/skills/s/run.sh", content: "#!/bin/sh\n" },
    ];
    const parsed = parseRepoExtensions(files, { dir: "/srv/x", fileList: files.map((f) => f.path), subagentTools: ["Read"] });
    expect(parsed.problems).toEqual([".tackle/skills/s/SKILL.md: the front matter has an alias, `*s`, inside the value it names (line 11)"]);
    expect(parsed.skills).toEqual([]);
  });
});
