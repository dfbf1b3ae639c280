// A config problem quotes the repository's text: a `blocked_commands` entry that is no regular expression
// is echoed whole in V8's message. The reply posted each problem as it came, so a 1 MB `.github/tackle.yml`
// made a comment past GitHub's 65,536 characters (refused, and the job's only explanation lost) and gave
// `inert` all of it to escape. Since 12f5b03 each problem is cut to 2,000 characters after masking, the cut
// marked with "…". Cutting first could split a token so that the redactor no longer knows it: here a token
// straddles the cut, so a cut before masking would post its first characters.
// A job over a signed webhook, the real config parser and redactor, and the fake GitHub's record.
import { afterEach, describe, expect, it } from "vitest";
import { parseRepoConfig } from "../../src/config/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { assign, botComments, setRepoConfig } from "../integration/e2e/trigger-helpers.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const TOKEN = `ghp_${"Qr7St8Uv9W".repeat(4).slice(0, 36)}`;
const TAIL = "ENDOFTHEVALUE";
/** Where the problem is cut: inert keeps 1,999 characters and adds "…". */
const CUT = 2_000;

const configWith = (padding: number) => `blocked_commands:\n  - '/${"a".repeat(padding)}${TOKEN}${"b".repeat(5_000)}${TAIL}(/'\n`;

function problemOf(yaml: string): string {
  const parsed = parseRepoConfig(yaml);
  if (parsed.ok || parsed.problems.length !== 1) throw new Error("expected one config problem");
  return parsed.problems[0]!;
}

describe("a config problem longer than 2,000 characters", () => {
  it("is posted cut after masking, the cut marked", async () => {
    // The token starts 10 characters before the cut: cut first, its first 9 characters would be left.
    const padding = CUT - 10 - problemOf(configWith(0)).indexOf(TOKEN);
    const yaml = configWith(padding);
    const problem = problemOf(yaml);
    expect(problem.indexOf(TOKEN)).toBe(CUT - 10);
    expect(problem.length).toBeGreaterThan(7_000);

    h = await startHarness({ script: [] });
    await setRepoConfig(h, yaml);
    const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title: "Fix it" });
    await assign(h, issue.number);
    await h.app.queue.idle();

    expect(h.model.requests).toHaveLength(0);
    const reply = botComments(h, issue.number).find((c) => c.body.includes("could not use"))?.body ?? "";
    const item = reply.split("\n").find((line) => line.startsWith("- ")) ?? "";
    expect(item).toMatch(/^- `blocked_commands\[0\]`: not a regular expression: .*\/aaa/);
    expect(item.endsWith("…")).toBe(true);
    // The bullet, 2,000 characters and an escape or two; nothing of the value after the cut.
    expect(item.length).toBeLessThan(CUT + 20);
    expect(item).not.toContain("bbb");
    expect(item).not.toContain(TAIL);
    expect(reply).not.toContain("ghp_");
    expect(reply).toContain("Fix the file and comment `/tackle retry`.");
  });
});
