import { describe, expect, it } from "vitest";
import { createTimeline, renderPieces, type Piece } from "../../../src/web/dashboard/render-timeline.js";

const lines = (...objects: Array<Record<string, unknown>>) => objects.map((o) => JSON.stringify(o));

function render(input: string[]): { html: string; pieces: Piece[] } {
  const timeline = createTimeline();
  const pieces = input.flatMap((line) => timeline.add(line));
  return { html: renderPieces(pieces), pieces };
}

const toolUse = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });

describe("createTimeline", () => {
  it("escapes every text, nests a subagent in its Task call, and puts results and policy answers under their calls", () => {
    const { html } = render(
      lines(
        { type: "meta", version: 2, model: "m<1>", startedAt: "t" },
        { type: "request", agent: "main", turn: 1, purpose: "turn", body: { messages: [{ role: "user", content: "Fix <b>it</b>" }] } },
        {
          type: "response",
          agent: "main",
          turn: 1,
          purpose: "turn",
          message: {
            content: [
              { type: "text", text: "<script>x()</script>" },
              toolUse("t1", "Task", { description: "look" }),
              toolUse("t2", "Bash", { command: "rm -rf /" }),
            ],
          },
        },
        { type: "request", agent: "main/1/1", turn: 1, purpose: "turn", body: { messages: [{ role: "user", content: "Look around" }] } },
        { type: "response", agent: "main/1/1", turn: 1, purpose: "turn", message: { content: [{ type: "text", text: "found it" }] } },
        { type: "end", agent: "main/1/1", reason: "no_tool_calls", message: "done", turns: 1, costUsd: 0.01 },
        { type: "approval", agent: "main", call: "main/1/2", tool: "Bash", reason: "risky <cmd>", approved: false, by: "alice" },
        {
          type: "tool_results",
          agent: "main",
          turn: 1,
          results: [
            { tool_use_id: "t1", content: "found it", is_error: false },
            { tool_use_id: "t2", content: "Not approved: no", is_error: true },
          ],
        },
      ),
    );
    expect(html).not.toMatch(/<script>|<b>|<cmd>|<1>/);
    expect(html).toContain("&#60;script&#62;x()&#60;/script&#62;");
    expect(html).toMatch(
      /<div class="event call" id="call:1:main\/1\/1">.*<div class="agent" id="tl:1:main\/1\/1">.*found it.*Subagent ended: no_tool_calls.*<\/div><details class="result ok" open><summary>Result · 8 chars<\/summary><pre>found it<\/pre><\/details><\/div>/s,
    );
    expect(html).toMatch(
      /id="call:1:main\/1\/2">.*Policy question: may Bash run\? \(risky &#60;cmd&#62;\) → denied by @alice<\/div><details class="result policy" open><summary>Refused by policy/s,
    );
  });

  it("gives a retried job's second run ids of its own, so its calls do not land in the first run's", () => {
    const run = (text: string) =>
      lines(
        { type: "meta", version: 2 },
        { type: "response", agent: "main", turn: 1, purpose: "turn", message: { content: [toolUse("x", "Read", { file_path: text })] } },
        { type: "tool_results", agent: "main", turn: 1, results: [{ tool_use_id: "x", content: `read ${text}`, is_error: false }] },
      );
    const { html } = render([...run("first"), ...run("second")]);
    expect(html).toMatch(/id="call:1:main\/1\/1">.*read first.*<div class="agent run" id="tl:2:main">.*id="call:2:main\/1\/1">.*read second/s);
    expect(html.match(/read first/g)).toHaveLength(1);
  });

  it("skips what is not JSON and notes a transcript cut at the store's cap", () => {
    const { html } = render(["not json", JSON.stringify({ type: "cut", reason: "cut here" })]);
    expect(html).toBe('<div class="event note">cut here</div>');
  });
});
