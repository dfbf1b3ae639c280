import { describe, expect, it } from "vitest";
import { parseFrontMatter } from "../../../src/config/parse-front-matter.js";
import { parseRepoExtensions, type ParseRepoExtensionsOptions } from "../../../src/config/parse-repo-extensions.js";
import { isRepoExtensionDefinition } from "../../../src/config/repo-extension-paths.js";

const SUBAGENT_TOOLS = ["Read", "Glob", "Grep", "Bash", "Edit", "Write"];
const DIR = "/srv/tackle/checkouts/job-1.extensions";

type Files = Record<string, string>;

function parse(files: Files, options: Partial<ParseRepoExtensionsOptions> = {}) {
  return parseRepoExtensions(
    Object.entries(files).map(([path, content]) => ({ path, content })),
    { dir: DIR, fileList: Object.keys(files), subagentTools: SUBAGENT_TOOLS, ...options },
  );
}

const agent = (front: string, body = "You review code.") => `---\n${front}\n---\n${body}\n`;
const skill = (front: string, body = "Do the thing.") => `---\n${front}\n---\n\n${body}\n`;

describe("parseFrontMatter", () => {
  it("splits YAML between --- lines from the body, with a BOM and CRLF line ends", () => {
    expect(parseFrontMatter("\uFEFF---\r\nname: x\r\n---\r\n\r\nbody\r\n")).toEqual({ kind: "ok", data: { name: "x" }, body: "body" });
    expect(parseFrontMatter("---\n---\nonly body")).toEqual({ kind: "ok", data: {}, body: "only body" });
    expect(parseFrontMatter("# Title\n---\nname: x\n---\n")).toEqual({ kind: "none", body: "# Title\n---\nname: x\n---" });
  });

  it("names what is wrong: no closing line, bad YAML with its line, a list instead of a mapping", () => {
    expect(parseFrontMatter("---\nname: x\nbody")).toEqual({ kind: "invalid", problem: "the front matter has no closing `---` line" });
    const bad = parseFrontMatter("---\nname: x\nname: y\n---\n");
    expect(bad).toEqual({ kind: "invalid", problem: "the front matter is not valid YAML: Map keys must be unique (line 3)" });
    expect(parseFrontMatter("---\n- a\n---\n")).toEqual({ kind: "invalid", problem: "the front matter must be a mapping of keys to values" });
  });

  it("refuses front matter nested past the limit, naming the file's line", () => {
    const deep = `---\nname: x\ntools: ${"[".repeat(64)}${"]".repeat(64)}\n---\nbody`;
    expect(parseFrontMatter(deep)).toEqual({
      kind: "invalid",
      problem: "the front matter nests lists and mappings more than 64 levels deep; Tackle reads nothing nested this far (line 3)",
    });
  });
});

describe("parseRepoExtensions: agents", () => {
  it("reads every key of a custom agent, its body as the prompt", () => {
    const result = parse({
      ".tackle/agents/reviewer.md": agent("name: reviewer\ndescription: Reviews a diff.\ntools: [Read, Grep]\nmodel: claude-haiku-4-5\nmax_turns: 12"),
    });
    expect(result.problems).toEqual([]);
    expect(result.agents).toEqual([
      {
        name: "reviewer",
        description: "Reviews a diff.",
        tools: ["Read", "Grep"],
        model: "claude-haiku-4-5",
        maxTurns: 12,
        prompt: "You review code.",
        path: ".tackle/agents/reviewer.md",
      },
    ]);
  });

  it("takes tools as a comma-separated string too, and leaves absent keys absent", () => {
    const result = parse({
      ".tackle/agents/a.md": agent("name: a\ndescription: A.\ntools: Read, Glob ,Grep"),
      ".tackle/agents/b.md": agent("name: b\ndescription: B."),
    });
    expect(result.problems).toEqual([]);
    expect(result.agents.map((a) => a.tools)).toEqual([["Read", "Glob", "Grep"], undefined]);
    expect(result.agents[1]).not.toHaveProperty("model");
    expect(result.agents[1]).not.toHaveProperty("maxTurns");
  });

  it("refuses a tool subagents may not have, naming the file, the tool and the tools they may have", () => {
    const result = parse({ ".tackle/agents/pr.md": agent("name: pr\ndescription: Opens PRs.\ntools: [Read, create_pull_request]") });
    expect(result.agents).toEqual([]);
    expect(result.problems).toEqual([
      '.tackle/agents/pr.md: `tools`: "create_pull_request" is not a tool a subagent may have; subagents may have: Read, Glob, Grep, Bash, Edit, Write',
    ]);
  });

  it("requires a valid name that is not a built-in type, and a description", () => {
    const result = parse({
      ".tackle/agents/1.md": agent("description: No name."),
      ".tackle/agents/2.md": agent("name: Big_Name\ndescription: Bad name."),
      ".tackle/agents/3.md": agent("name: explore\ndescription: Shadows a built-in."),
      ".tackle/agents/4.md": agent("name: quiet"),
      ".tackle/agents/5.md": agent(`name: ${"a".repeat(65)}\ndescription: Too long a name.`),
    });
    expect(result.agents).toEqual([]);
    expect(result.problems).toEqual([
      expect.stringMatching(/^\.tackle\/agents\/1\.md: `name`: required: .* \(got nothing\)$/),
      expect.stringMatching(/^\.tackle\/agents\/2\.md: `name`: .*\(got "Big_Name"\)$/),
      '.tackle/agents/3.md: `name`: "explore" is a built-in subagent type (general-purpose, explore, shell); choose another name',
      expect.stringMatching(/^\.tackle\/agents\/4\.md: `description`: required/),
      expect.stringMatching(/^\.tackle\/agents\/5\.md: `name`: /),
    ]);
  });

  it("bounds max_turns to a whole number from 1 to 200 and wants a model name as text", () => {
    const result = parse({
      ".tackle/agents/a.md": agent("name: a\ndescription: A.\nmax_turns: 0"),
      ".tackle/agents/b.md": agent("name: b\ndescription: B.\nmax_turns: 201"),
      ".tackle/agents/c.md": agent('name: c\ndescription: C.\nmax_turns: "5"'),
      ".tackle/agents/d.md": agent("name: d\ndescription: D.\nmax_turns: 2.5"),
      ".tackle/agents/e.md": agent("name: e\ndescription: E.\nmodel: [x]"),
      ".tackle/agents/f.md": agent("name: f\ndescription: F.\nmax_turns: 200"),
    });
    expect(result.agents.map((a) => [a.name, a.maxTurns])).toEqual([["f", 200]]);
    expect(result.problems).toEqual([
      ".tackle/agents/a.md: `max_turns`: expected a whole number from 1 to 200 (got 0)",
      ".tackle/agents/b.md: `max_turns`: expected a whole number from 1 to 200 (got 201)",
      '.tackle/agents/c.md: `max_turns`: expected a whole number from 1 to 200 (got "5")',
      ".tackle/agents/d.md: `max_turns`: expected a whole number from 1 to 200 (got 2.5)",
      ".tackle/agents/e.md: `model`: expected a model name (got a list of 1)",
    ]);
  });

  it("reports two agents with one name, and sorts agents by name whatever their file names", () => {
    const result = parse({
      ".tackle/agents/z.md": agent("name: alpha\ndescription: Z."),
      ".tackle/agents/b.md": agent("name: beta\ndescription: B."),
      ".tackle/agents/a.md": agent("name: beta\ndescription: A."),
    });
    expect(result.agents.map((a) => [a.name, a.path])).toEqual([
      ["alpha", ".tackle/agents/z.md"],
      ["beta", ".tackle/agents/a.md"],
    ]);
    expect(result.problems).toEqual(['.tackle/agents/b.md: `name`: "beta" is already the name of .tackle/agents/a.md; agent names must be unique']);
  });

  it("reads top-level .md files only; a file without front matter is a warning, bad YAML a problem", () => {
    const result = parse({
      ".tackle/agents/nested/deep.md": agent("name: deep\ndescription: Nested."),
      ".tackle/agents/notes.txt": agent("name: notes\ndescription: Not markdown."),
      ".tackle/agents/README.md": "# Our agents\n",
      ".tackle/agents/broken.md": "---\nname: [broken\n---\nbody\n",
    });
    expect(result.agents).toEqual([]);
    expect(result.warnings).toEqual([".tackle/agents/README.md: skipped, it has no front matter (--- name, description --- at the top)"]);
    expect(result.problems).toEqual([expect.stringMatching(/^\.tackle\/agents\/broken\.md: the front matter is not valid YAML: .*\(line 3\)$/)]);
  });

  it("ignores keys of other tools but names a near-miss of its own, and wants instructions", () => {
    const result = parse({
      ".tackle/agents/a.md": agent("name: a\ndescription: A.\ncolor: blue\npermissionMode: plan"),
      ".tackle/agents/b.md": agent("name: b\ndescription: B.\nmaxTurns: 3"),
      ".tackle/agents/c.md": agent("name: c\ndescription: C.", ""),
    });
    expect(result.agents.map((a) => a.name)).toEqual(["a"]);
    expect(result.problems).toEqual([
      ".tackle/agents/b.md: `maxTurns`: unknown key (did you mean `max_turns`?)",
      ".tackle/agents/c.md: the file has no instructions after its front matter",
    ]);
  });
});

describe("parseRepoExtensions: skills", () => {
  it("reads a skill: name, description, body, its folder (absolute) and every file in it, sorted", () => {
    const result = parse({
      ".tackle/skills/release/SKILL.md": skill("name: release\ndescription: Cuts a release.", "Run the checklist."),
      ".tackle/skills/release/scripts/check.sh": "",
      ".tackle/skills/release/CHECKLIST.md": "",
      ".tackle/skills/other/SKILL.md": skill("name: other\ndescription: Other."),
    });
    expect(result.problems).toEqual([]);
    expect(result.skills.map((s) => s.name)).toEqual(["other", "release"]);
    expect(result.skills[1]).toEqual({
      name: "release",
      description: "Cuts a release.",
      body: "Run the checklist.",
      dir: `${DIR}/.tackle/skills/release`,
      files: ["CHECKLIST.md", "SKILL.md", "scripts/check.sh"],
      tools: [],
      path: ".tackle/skills/release/SKILL.md",
    });
  });

  it("falls back to the folder's name, which must then be a valid name", () => {
    const result = parse({
      ".claude/skills/pdf-tools/SKILL.md": skill("description: PDFs."),
      ".claude/skills/Bad Folder/SKILL.md": skill("description: Bad."),
    });
    expect(result.skills.map((s) => s.name)).toEqual(["pdf-tools"]);
    expect(result.problems).toEqual([
      '.claude/skills/Bad Folder/SKILL.md: `name`: lowercase letters, digits, hyphens and underscores, at most 64, starting with a letter or digit (got the folder\'s name, "Bad Folder")',
    ]);
  });

  it("accepts and ignores keys it does not use (Claude's allowed-tools, license, metadata)", () => {
    const result = parse({
      ".claude/skills/x/SKILL.md": skill("name: x\ndescription: X.\nallowed-tools: Bash(git:*), Read\nlicense: MIT\nmetadata:\n  version: 2\nversion: 1.0"),
    });
    expect(result.problems).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result.skills.map((s) => s.name)).toEqual(["x"]);
  });

  it("requires a description and front matter", () => {
    const result = parse({
      ".tackle/skills/a/SKILL.md": skill("name: a"),
      ".tackle/skills/b/SKILL.md": "Just text.\n",
    });
    expect(result.skills).toEqual([]);
    expect(result.problems).toEqual([
      expect.stringMatching(/^\.tackle\/skills\/a\/SKILL\.md: `description`: required/),
      ".tackle/skills/b/SKILL.md: no front matter; start the file with --- name, description ---",
    ]);
  });

  it("lets the first path win a name clash (.tackle before .claude), with a warning, not a problem", () => {
    const result = parse({
      ".claude/skills/fmt/SKILL.md": skill("name: fmt\ndescription: Claude's."),
      ".tackle/skills/format/SKILL.md": skill("name: fmt\ndescription: Tackle's."),
      ".tackle/skills/zfmt/SKILL.md": skill("name: fmt\ndescription: Later in .tackle."),
    });
    expect(result.problems).toEqual([]);
    expect(result.skills).toHaveLength(1);
    expect(result.skills[0]?.description).toBe("Tackle's.");
    expect(result.warnings).toEqual([
      '.tackle/skills/zfmt/SKILL.md: skill "fmt" is left out; .tackle/skills/format/SKILL.md has the same name and comes first',
      '.claude/skills/fmt/SKILL.md: skill "fmt" is left out; .tackle/skills/format/SKILL.md has the same name and comes first',
    ]);
  });

  it("only reads SKILL.md directly in a skill's folder", () => {
    const result = parse({
      ".tackle/skills/SKILL.md": skill("name: top\ndescription: Top."),
      ".tackle/skills/a/b/SKILL.md": skill("name: deep\ndescription: Deep."),
      ".tackle/skills/a/skill.md": skill("name: lower\ndescription: Lowercase."),
    });
    expect(result.skills).toEqual([]);
    expect(result.problems).toEqual([]);
    expect(isRepoExtensionDefinition(".tackle/skills/a/SKILL.md")).toBe(true);
    expect(isRepoExtensionDefinition(".tackle/skills/a/b/SKILL.md")).toBe(false);
    expect(isRepoExtensionDefinition(".tackle/agents/x.md")).toBe(true);
    expect(isRepoExtensionDefinition(".tackle/agents/x/y.md")).toBe(false);
  });

  it("reads a skill's tools: command as an absolute path in its folder, input_schema defaulting to an object", () => {
    const front = [
      "name: lint",
      "description: Lints.",
      "tools:",
      "  - name: run_lint",
      "    description: Runs the linter on the given files.",
      "    input_schema:",
      "      type: object",
      "      properties:",
      "        files: {type: array, items: {type: string}}",
      "      required: [files]",
      "    command: bin/lint.sh",
      "  - name: version",
      "    description: Prints the linter's version.",
      "    command: ./version.sh",
    ].join("\n");
    const files = { ".tackle/skills/lint/SKILL.md": skill(front), ".tackle/skills/lint/bin/lint.sh": "", ".tackle/skills/lint/version.sh": "" };
    const result = parse(files, { executable: new Set([".tackle/skills/lint/bin/lint.sh", ".tackle/skills/lint/version.sh"]) });
    expect(result.problems).toEqual([]);
    expect(result.skills[0]?.tools).toEqual([
      {
        name: "run_lint",
        description: "Runs the linter on the given files.",
        inputSchema: { type: "object", properties: { files: { type: "array", items: { type: "string" } } }, required: ["files"] },
        command: `${DIR}/.tackle/skills/lint/bin/lint.sh`,
      },
      { name: "version", description: "Prints the linter's version.", inputSchema: { type: "object" }, command: `${DIR}/.tackle/skills/lint/version.sh` },
    ]);
  });

  it("names the skill's file and the key of each bad tool entry", () => {
    const front = [
      "name: bad",
      "description: Bad tools.",
      "tools:",
      "  - name: escape",
      "    description: Leaves the folder.",
      "    command: ../other/run.sh",
      "  - name: absolute",
      "    description: Absolute.",
      "    command: /usr/bin/env",
      "  - name: missing",
      "    description: Not there.",
      "    command: nope.sh",
      "  - name: plain",
      "    description: Not executable.",
      "    command: plain.sh",
      "  - name: Bad Name",
      "    description: Bad name.",
      "    command: run.sh",
      "  - name: schema",
      "    description: Bad schema.",
      "    input_schema: {type: string}",
      "    command: run.sh",
      "  - name: nodesc",
      "    command: run.sh",
      "  - name: camel",
      "    description: Camel.",
      "    inputSchema: {type: object}",
      "    command: run.sh",
      "  - just a string",
      "  - name: ok",
      "    description: Fine.",
      "    command: run.sh",
      "  - name: ok",
      "    description: Twice.",
      "    command: run.sh",
      "  - name: typo",
      "    description: A misspelt type deep inside.",
      "    input_schema: {type: object, properties: {tags: {type: array, items: {type: strng}}}}",
      "    command: run.sh",
      "  - name: required",
      "    description: required as a string.",
      "    input_schema: {type: object, properties: {x: {type: string}}, required: x}",
      "    command: run.sh",
    ].join("\n");
    const files = {
      ".tackle/skills/bad/SKILL.md": skill(front),
      ".tackle/skills/bad/run.sh": "",
      ".tackle/skills/bad/plain.sh": "",
      ".tackle/skills/other/run.sh": "",
    };
    const result = parse(files, { executable: new Set([".tackle/skills/bad/run.sh", ".tackle/skills/other/run.sh"]) });
    expect(result.skills).toEqual([]);
    const file = ".tackle/skills/bad/SKILL.md";
    expect(result.problems).toEqual([
      `${file}: \`tools[0].command\`: "../other/run.sh" must be a plain path inside the skill's folder, relative to it (no leading /, no .. or empty parts)`,
      `${file}: \`tools[1].command\`: "/usr/bin/env" must be a plain path inside the skill's folder, relative to it (no leading /, no .. or empty parts)`,
      `${file}: \`tools[2].command\`: "nope.sh" is not a file in .tackle/skills/bad on the default branch (symlinks are not extracted)`,
      `${file}: \`tools[3].command\`: "plain.sh" is not executable; commit it with its executable bit (git update-index --chmod=+x .tackle/skills/bad/plain.sh)`,
      `${file}: \`tools[4].name\`: required: lowercase letters, digits, hyphens and underscores, 1 to 40 (got "Bad Name")`,
      `${file}: \`tools[5].input_schema\`: the input is a JSON object: \`type\` must be "object" (got "string")`,
      expect.stringMatching(/^\.tackle\/skills\/bad\/SKILL\.md: `tools\[6\]\.description`: required/),
      `${file}: \`tools[7].inputSchema\`: unknown key (did you mean \`input_schema\`?)`,
      `${file}: \`tools[8]\`: expected a mapping with name, description, input_schema and command (got "just a string")`,
      `${file}: \`tools[10].name\`: "ok" is declared twice`,
      `${file}: \`tools[11].input_schema\`: \`type\` at \`tags.items\` must be one of object, array, string, number, integer, boolean, null (got "strng")`,
      `${file}: \`tools[12].input_schema\`: \`required\` must be a list of property names (got "x")`,
    ]);
  });

  it("refuses tools that are not a list, and a tool whose offered name would be too long for the model", () => {
    const long = "s".repeat(40);
    const result = parse(
      {
        ".tackle/skills/a/SKILL.md": skill("name: a\ndescription: A.\ntools: run.sh"),
        [`.tackle/skills/${long}/SKILL.md`]: skill(`description: Long.\ntools:\n  - name: ${"t".repeat(20)}\n    description: T.\n    command: run.sh`),
        [`.tackle/skills/${long}/run.sh`]: "",
      },
      {},
    );
    expect(result.skills).toEqual([]);
    expect(result.problems).toEqual([
      '.tackle/skills/a/SKILL.md: `tools`: expected a list of {name, description, input_schema, command} (got "run.sh")',
      `.tackle/skills/${long}/SKILL.md: \`tools[0].name\`: the model sees it as skill__${long}__${"t".repeat(20)}, longer than 64 characters; shorten the skill's or the tool's name`,
    ]);
  });

  it("reports two skills whose tools the model would see under one name", () => {
    const tool = (name: string) => `tools:\n  - name: ${name}\n    description: T.\n    command: run.sh`;
    const result = parse({
      ".tackle/skills/a/SKILL.md": skill(`name: a\ndescription: A.\n${tool("b__c")}`),
      ".tackle/skills/a/run.sh": "",
      ".tackle/skills/a__b/SKILL.md": skill(`name: a__b\ndescription: AB.\n${tool("c")}`),
      ".tackle/skills/a__b/run.sh": "",
    });
    expect(result.problems).toEqual([
      ".tackle/skills/a__b/SKILL.md: `tools`: skill__a__b__c is also the name of a tool of .tackle/skills/a/SKILL.md; rename one",
    ]);
  });

  it("caps descriptions: they are sent with every request", () => {
    const result = parse({ ".tackle/skills/a/SKILL.md": skill(`name: a\ndescription: ${"x".repeat(1025)}`) });
    expect(result.problems).toEqual([".tackle/skills/a/SKILL.md: `description`: at most 1024 characters (got 1025); it is sent with every request"]);
  });
});
