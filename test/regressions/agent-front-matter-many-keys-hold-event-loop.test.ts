// The repository's agent and skill files (`.tackle/agents/*.md`, `<root>/<name>/SKILL.md`, from the default
// branch) are parsed in the Tackle process, synchronously, on the event loop every job, webhook and lock
// renewal shares (src/worker/load-repo-extensions.ts › parseRepoExtensions › parseFrontMatter). The front
// matter goes through the yaml library with `uniqueKeys: true`, which compares each key of a mapping with
// every key before it: quadratic in the keys of one mapping. The limits bound bytes, not keys: 256 KB a
// definition file, 5 MiB and 2,000 files in all.
//
// A repository commits agent files whose front matter is ~25,000 short distinct keys each (`k0: 1`, …, just
// under 256 KB): one such file held the event loop 33 s (loaded 2-core host), and the 5 MiB allow twenty
// of them, ~11 minutes per job, during which nothing else of the process runs (the job's deadline and
// /tackle stop are timers; with BullMQ the held worker's locks expire and the job is handed on to be held
// again). Each unknown key is also its own problem, so the reply about them is ~25,000 lines a file.
//
// No clock: on the code before, this case (eight files) takes minutes, past the test's timeout.
import { describe, expect, it } from "vitest";
import { parseRepoExtensions } from "../../src/config/parse-repo-extensions.js";

function frontMatterOfManyKeys(maxChars: number): string {
  const lines: string[] = ["---\n", "name: a\n", "description: a\n"];
  let size = 32;
  for (let i = 0; size < maxChars; i += 1) {
    const line = `k${i}: 1\n`;
    lines.push(line);
    size += line.length;
  }
  lines.push("---\nbody\n");
  return lines.join("");
}

describe("agent files whose front matter has very many keys", () => {
  it("are answered at once with problems, not parsed for minutes on the event loop", () => {
    const content = frontMatterOfManyKeys(256 * 1024 - 64);
    const files = Array.from({ length: 8 }, (_, i) => ({ path: `.tackle/agents/a${i}.md`, content }));
    const parsed = parseRepoExtensions(files, { dir: "/nonexistent", fileList: files.map((f) => f.path), subagentTools: ["Read"] });
    expect(parsed.problems.length).toBeGreaterThan(0);
  });
});
