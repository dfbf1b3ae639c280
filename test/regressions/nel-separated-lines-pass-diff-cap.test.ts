import { describe, expect, it } from "vitest";
import { isTackleError } from "../../src/errors/index.js";
import { publishFixture } from "./publish-fixture.js";

describe("the publish check's line count, with NEL", () => {
  const { publish: run, remoteHas } = publishFixture("nel-separated");
  /** A job that commits what `script` writes (node, inside the sandbox), then publishes with max_diff_lines: 10. */
  async function publish(script: string): Promise<{ refused: unknown; branch: string }> {
    const published = await run(`node -e '${script}' && git add -A && git commit -qm change`, { maxDiffLines: 10 });
    expect(published.output).toBe("");
    return published;
  }

  it("5,000 YAML settings separated by NEL (U+0085) are 5,000 lines: refused, nothing pushed", async () => {
    const { refused, branch } = await publish(
      'require("fs").writeFileSync("settings.yml", Array.from({ length: 5000 }, (_, i) => "key" + i + ": " + i).join("\\u0085"))',
    );
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toMatch(/the branch's diff is 500\d lines, over the repository's max_diff_lines of 10/);
    expect(await remoteHas(branch)).toBe(false);
  });

  it("a Latin-1 byte 0x85 alone (not UTF-8 NEL) does not end a line: five lines pass", async () => {
    const { refused, branch } = await publish('require("fs").writeFileSync("src/latin1.txt", Buffer.from("a\\x85\\nb\\nc\\nd\\ne\\n", "latin1"))');
    expect(refused).toBeNull();
    expect(await remoteHas(branch)).toBe(true);
  });
});
