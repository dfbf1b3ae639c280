// The fake OpenAI-compatible server speaks the wire format a client must handle: checked with plain fetch.
import { afterEach, describe, expect, it } from "vitest";
import { readSseData } from "../../src/agent/read-sse-data.js";
import { startFakeOpenAI, type FakeOpenAI } from "../fakes/index.js";

let fake: FakeOpenAI | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const post = (body: unknown, key = fake!.apiKey) =>
  fetch(`${fake!.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

async function chunks(response: Response): Promise<string[]> {
  const out: string[] = [];
  for await (const data of readSseData(response.body as unknown as AsyncIterable<Uint8Array>)) out.push(data);
  return out;
}

describe("fake OpenAI-compatible server", () => {
  it("streams a tool call opened with id and name, its arguments over several chunks, then finish, usage and [DONE]", async () => {
    fake = await startFakeOpenAI([{ content: [{ type: "tool_use", name: "Write", input: { file_path: "a.txt", content: "hello world" }, id: "call_x" }] }]);
    const response = await post({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true, stream_options: { include_usage: true } });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const data = await chunks(response);
    expect(data.at(-1)).toBe("[DONE]");
    const parsed = data.slice(0, -1).map(
      (d) =>
        JSON.parse(d) as {
          choices: Array<{ delta: { tool_calls?: Array<{ id?: string; function: { name?: string; arguments?: string } }> }; finish_reason: string | null }>;
          usage?: unknown;
        },
    );
    const calls = parsed.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(calls[0]).toMatchObject({ id: "call_x", function: { name: "Write", arguments: "" } });
    expect(calls.length).toBeGreaterThan(2);
    expect(JSON.parse(calls.map((c) => c.function.arguments ?? "").join(""))).toEqual({ file_path: "a.txt", content: "hello world" });
    expect(parsed.at(-2)?.choices[0]?.finish_reason).toBe("tool_calls");
    expect(parsed.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number), prompt_tokens_details: { cached_tokens: 0 } } });
  });

  it("sends no usage chunk unless asked, and answers a non-streamed request whole", async () => {
    fake = await startFakeOpenAI([{ content: [{ type: "text", text: "hello" }] }, { content: [{ type: "text", text: "whole" }] }]);
    const data = await chunks(await post({ model: "m", messages: [{ role: "user", content: "hi" }], stream: true }));
    expect(data.some((d) => d.includes('"usage"'))).toBe(false);
    const whole = (await (await post({ model: "m", messages: [{ role: "user", content: "hi" }] })).json()) as {
      choices: Array<{ message: unknown; finish_reason: string }>;
    };
    expect(whole.choices[0]).toMatchObject({ message: { role: "assistant", content: "whole" }, finish_reason: "stop" });
  });

  it("refuses what the real API refuses: a wrong key, a tool call left unanswered, a tool message without a call", async () => {
    fake = await startFakeOpenAI([{ content: [{ type: "text", text: "never" }] }]);
    expect((await post({ model: "m", messages: [{ role: "user", content: "hi" }] }, "sk-wrong")).status).toBe(401);
    const unanswered = await post({
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "Read", arguments: "{}" } }] },
        { role: "user", content: "and?" },
      ],
    });
    expect(unanswered.status).toBe(400);
    expect(((await unanswered.json()) as { error: { message: string } }).error.message).toContain("did not have response messages: c1");
    const orphan = await post({
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        { role: "tool", tool_call_id: "nope", content: "x" },
      ],
    });
    expect(orphan.status).toBe(400);
    expect(fake.turnsUsed()).toBe(0);
  });

  it("lists its models, and counts a repeated prefix of whole messages as cached once it is long enough", async () => {
    fake = await startFakeOpenAI(
      [{ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] }, { content: [{ type: "text", text: "c" }] }],
      {
        models: ["m1"],
        minCacheableTokens: 100,
      },
    );
    const models = (await (await fetch(`${fake.url}/models`, { headers: { authorization: `Bearer ${fake.apiKey}` } })).json()) as {
      data: Array<{ id: string }>;
    };
    expect(models.data.map((m) => m.id)).toEqual(["m1"]);
    const long = { role: "system", content: "rules ".repeat(200) };
    const ask = (...rest: unknown[]) => post({ model: "m", messages: [long, ...rest], stream: true, stream_options: { include_usage: true } }).then(chunks);
    await ask({ role: "user", content: "one" });
    await ask({ role: "user", content: "two" });
    await post({
      model: "m",
      messages: [
        { role: "system", content: "short" },
        { role: "user", content: "x" },
      ],
      stream: true,
    }).then(chunks);
    const [first, second, third] = fake.requests.filter((r) => r.path.endsWith("/chat/completions")).map((r) => r.usage!);
    expect(first!.cached_tokens).toBe(0);
    expect(second!.cached_tokens).toBeGreaterThanOrEqual(300);
    expect(second!.cached_tokens).toBeLessThan(second!.prompt_tokens);
    expect(third!.cached_tokens).toBe(0);
  });
});
