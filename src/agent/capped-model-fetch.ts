import { TackleError } from "../errors/tackle-error.js";

/**
 * The most one model response may send, for every provider. Far past any one reply (a streamed
 * token costs a few hundred bytes of SSE or event-stream framing, so this is hundreds of thousands of
 * tokens): a server that keeps sending is cut here rather than grow the reply in the host's memory
 * until the job's deadline, taking every job of the process with it.
 */
export const MAX_MODEL_RESPONSE_BYTES = 128 * 1024 * 1024;

/** What the model SDKs accept as their `fetch` option, and what the OpenAI-compatible client calls. */
export type ModelFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/** Statuses whose Response cannot carry a body (the constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The one fetch every model client sends with (the Anthropic, Bedrock and Vertex SDKs, the
 * OpenAI-compatible client): the global fetch, with each response's body counted as it streams in.
 * One byte past `MAX_MODEL_RESPONSE_BYTES` errors the body with a `model_api` TackleError that is not
 * retryable (another attempt would read as much again) and cancels the response, which closes the
 * connection: the rest is never read. Bytes are counted as fetch hands them over, after any
 * content-encoding is undone, so a compressed answer is bounded by what it holds in memory.
 *
 * @param api who answers, for the error (`Anthropic API`, `Bedrock`, `OpenAI-compatible API`)
 */
export function cappedModelFetch(api: string): ModelFetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null || NULL_BODY_STATUSES.has(response.status)) return response;
    const capped = new Response(response.body.pipeThrough(byteCap(api)), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    // A new Response has no URL; the SDKs log and report the one the answer came from.
    Object.defineProperty(capped, "url", { value: response.url });
    return capped;
  };
}

/** Passes chunks on until more than the cap came; then errors both sides (the source is cancelled). */
function byteCap(api: string): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > MAX_MODEL_RESPONSE_BYTES) {
        throw new TackleError(
          "model_api",
          `${api}: the server sent more than ${MAX_MODEL_RESPONSE_BYTES / 1024 / 1024} MiB for one response, the cap on every model response; cut there, not retried`,
          { retryable: false },
        );
      }
      controller.enqueue(chunk);
    },
  });
}
