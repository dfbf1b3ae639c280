/**
 * Repository YAML (`.github/tackle.yml`, agent and skill front matter) is parsed in the Tackle process, so
 * it goes through one parser whose cost is linear in the text and whose output is bounded
 * (src/config/parse-bounded-yaml.ts: duplicate keys found in one pass, at most MAX_YAML_VALUES values,
 * MAX_YAML_ALIASES aliases and MAX_YAML_DEPTH levels). This reads every source file under src/ for the yaml library's parsers;
 * the exception reads the operator's own file, and a listed file that no longer needs it fails too.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve("src");
const CHOKEPOINT = "config/parse-bounded-yaml.ts";
/** Files allowed to parse YAML themselves, and why. */
const EXCEPTIONS: Record<string, string> = {
  "config/app-manifest.ts": "`tackle setup` reads the operator's app.yml, never a repository's",
};

/** What of the yaml library parses text: its public parse functions and the classes they are built of. */
const PARSERS = /\b(?:parse|parseDocument|parseAllDocuments|Parser|Composer|Lexer)\b/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(?:ts|mts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

/** The names a file imports from the yaml library, as values (a type-only import parses nothing). */
function yamlImports(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s+(?!type\b)([^;]*?)\s+from\s*["']yaml["']/g)) {
    names.push(
      ...(match[1] ?? "")
        .replace(/[{}]/g, " ")
        .split(/[\s,]+/)
        .filter((name) => name !== "" && name !== "type"),
    );
  }
  if (/require\(\s*["']yaml["']\s*\)|import\(\s*["']yaml["']\s*\)/.test(text)) names.push("a dynamic import");
  return names;
}

describe("repository YAML goes through parseBoundedYaml", () => {
  const parsing = sourceFiles(SRC)
    .map((file) => ({ file: path.relative(SRC, file).split(path.sep).join("/"), names: yamlImports(readFileSync(file, "utf8")) }))
    .filter(({ names }) => names.some((name) => name === "a dynamic import" || name === "*" || PARSERS.test(name)))
    .map(({ file }) => file)
    .sort();

  it("no other file imports a parser of the yaml library", () => {
    expect(parsing).toEqual([CHOKEPOINT, ...Object.keys(EXCEPTIONS)].sort());
  });
});
