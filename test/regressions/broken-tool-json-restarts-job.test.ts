// A tool call whose input the model wrote as malformed JSON restarted the whole job: the SDK rejected
// the streamed message, the client took it for a cut stream and sent the request 5 times, the loop
// ended with a retryable model_error, and the queue ran the job again from the start. The model never
// saw its mistake. Now the call is answered with an is_error tool result and the loop goes on.
import { afterEach, expect, it } from "vitest";
import { processJob } from "../../src/worker/index.js";
import type { ScriptedTurn } from "../fakes/index.js";
import { fixTemperatureScript, OWNER, REPO, startJobWorld, type JobWorld } from "../integration/e2e/harness.js";
import { turnIndex } from "../integration/e2e/script-helpers.js";

let world: JobWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** An Edit whose new_string holds an unescaped quote: what a model sometimes streams. */
const BROKEN_EDIT = '{"file_path": "src/temperature.js", "old_string": "/ 5 + 23;", "new_string": "/ 5 + 32; // was "23""}';

interface SentBlock {
  type: string;
  input?: unknown;
  content?: unknown;
  is_error?: boolean;
}

it("a tool call with malformed JSON input is answered as a tool error; the job ends done with its PR, one extra turn, no retry", async () => {
  const [first, ...rest] = fixTemperatureScript();
  const brokenTurn: ScriptedTurn = {
    content: [
      { type: "text", text: "Fixing the offset." },
      { type: "tool_use", name: "Edit", id: "toolu_broken", rawInputJson: BROKEN_EDIT },
    ],
  };
  const script = [first!, brokenTurn, ...rest];
  world = await startJobWorld(script);
  const { gh, model, data, deps } = world;

  // With attempts left, a retryable failure would reject here for the queue to run the job again.
  const outcome = await processJob(data, deps, new AbortController().signal, { attempt: 1, maxAttempts: 3 });

  expect(outcome.status).toBe("done");
  expect(outcome.pullRequestUrl).toMatch(/\/pull\/\d+$/);
  expect(gh.pulls(OWNER, REPO)).toHaveLength(1);
  expect(await gh.readFile(OWNER, REPO, `tackle/issue-${data.number}`, "src/temperature.js")).toContain("/ 5 + 32;");
  // One request per scripted turn, each one turn further into the conversation: the broken turn is the
  // only extra one, and no request was sent again.
  expect(model.requests.map((r) => r.status)).toEqual(script.map(() => 200));
  expect(model.requests.map((r) => turnIndex(r.body))).toEqual(script.map((_, i) => i));
  expect(model.exhausted()).toBe(0);

  // The turn after the broken one shows the model its call (as a valid tool_use) and what was wrong with it.
  const messages = (model.requests[2]!.body.messages ?? []) as Array<{ role: string; content: SentBlock[] }>;
  const assistant = messages.at(-2)!;
  expect(assistant.role).toBe("assistant");
  expect(assistant.content.find((b) => b.type === "tool_use")).toMatchObject({ type: "tool_use", id: "toolu_broken", name: "Edit", input: {} });
  const result = messages.at(-1)!.content.find((b) => b.type === "tool_result");
  expect(result?.is_error).toBe(true);
  expect(String(result?.content)).toMatch(/^Not run: your input for Edit was not valid JSON/);
  expect(String(result?.content)).toContain('"new_string": "/ 5 + 32; // was "23""');

  const tracking = gh.comments(OWNER, REPO, data.number).filter((c) => c.body.includes("tackle:tracking"));
  expect(tracking).toHaveLength(1);
  expect(tracking[0]!.body).toContain("Tackle finished");
}, 60_000);
