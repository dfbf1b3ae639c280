// A problem about the repository's files may quote its text, and the reply cuts each problem to
// PROBLEM_CHARS (2,000) characters, bounding inert's work on it. The cut must come after masking:
// cut first, a token split by the cut is no longer one the redactor knows, and its first characters
// would be posted. (This was an e2e test driven by a long `blocked_commands` entry; entries are now
// capped at 256 characters and their problems no longer quote them whole, so the one function both
// problem replies use is tested with the real redactor.)
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";
import { md } from "../../src/util/surface-markdown.js";
import { PROBLEM_CHARS, problemComment } from "../../src/worker/problem-comment.js";

const TOKEN = `ghp_${"Qr7St8Uv9W".repeat(4).slice(0, 36)}`;
const TAIL = "ENDOFTHEVALUE";

describe("a problem longer than PROBLEM_CHARS", () => {
  it("is posted cut after masking, the cut marked", () => {
    // The token starts 10 characters before the cut: cut first, its first 9 characters would be left.
    const problem = `\`x\`: not what was expected: ${"a".repeat(PROBLEM_CHARS - 10 - 28)}${TOKEN}${"b".repeat(5_000)}${TAIL}`;
    expect(problem.indexOf(TOKEN)).toBe(PROBLEM_CHARS - 10);
    const reply = problemComment(md`Tackle could not use the file:`, [problem], md`Fix the file and comment \`/tackle retry\`.`, createRedactor([]));
    const item = reply.split("\n").find((line) => line.startsWith("- ")) ?? "";
    expect(item.endsWith("…")).toBe(true);
    expect(item.length).toBeLessThan(PROBLEM_CHARS + 20);
    expect(item).not.toContain("bbb");
    expect(item).not.toContain(TAIL);
    expect(reply).not.toContain("ghp_");
    expect(reply).not.toContain(TOKEN.slice(0, 9));
  });
});
