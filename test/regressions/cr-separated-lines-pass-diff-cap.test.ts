import { describe, expect, it } from "vitest";
import { isTackleError } from "../../src/errors/index.js";
import { publishFixture } from "./publish-fixture.js";

describe("the publish check's line count, with other line separators", () => {
  const { publish: run, remoteHas } = publishFixture("cr-separated");
  /** A job that commits what `script` writes (node, inside the sandbox), then publishes with max_diff_lines: 10. */
  async function publish(script: string): Promise<{ refused: unknown; branch: string }> {
    const published = await run(`node -e '${script}' && git add -A && git commit -qm change`, { maxDiffLines: 10 });
    expect(published.output).toBe("");
    return published;
  }

  for (const [name, separator] of [
    ["\\r", "\\r"],
    ["U+2028", "\\u2028"],
    ["U+2029", "\\u2029"],
  ] as const) {
    it(`5,000 statements separated by ${name} are 5,000 lines: refused, nothing pushed`, async () => {
      const { refused, branch } = await publish(
        `require("fs").writeFileSync("src/evil.js", Array.from({ length: 5000 }, (_, i) => "x" + i + "()").join("${separator}"))`,
      );
      expect(isTackleError(refused, "push_refused")).toBe(true);
      expect((refused as Error).message).toMatch(/the branch's diff is 500\d lines, over the repository's max_diff_lines of 10/);
      expect(await remoteHas(branch)).toBe(false);
    });
  }

  it("a file with \\r\\n line ends counts each line once: five lines pass", async () => {
    const { refused, branch } = await publish('require("fs").writeFileSync("src/crlf.txt", "a\\r\\nb\\r\\nc\\r\\nd\\r\\ne\\r\\n")');
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });
});
