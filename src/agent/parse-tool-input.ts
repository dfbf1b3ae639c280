import type { InvalidToolInput } from "./model-client.js";

/** How deep a tool input may nest: no tool's schema goes past a few levels, and every later step (masking, hooks, the next request's JSON) walks it. */
export const MAX_TOOL_INPUT_DEPTH = 64;

/**
 * The one parser of a tool call's streamed JSON, for every provider: its input, or why it is invalid
 * (not JSON, or nested deeper than MAX_TOOL_INPUT_DEPTH: 6,000 levels of `[` overflowed the stack of
 * the transcript writer and of the next request's serialization).
 */
export function parseToolInput(json: string): { input: unknown } | { invalid: InvalidToolInput } {
  // Measured on the text first: nothing nested too deep is built at all.
  if (nestingOf(json) > MAX_TOOL_INPUT_DEPTH) {
    return { invalid: { error: `the input nests more than ${MAX_TOOL_INPUT_DEPTH} levels deep; send a flatter input`, raw: json } };
  }
  try {
    return { input: JSON.parse(json) as unknown };
  } catch (error) {
    return { invalid: { error: (error as Error).message, raw: json } };
  }
}

/** The deepest nesting of `[` and `{` in JSON text, outside strings: a scan, no recursion. */
function nestingOf(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    const char = json[i];
    if (inString) {
      if (char === "\\") i += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "[" || char === "{") deepest = Math.max(deepest, ++depth);
    else if (char === "]" || char === "}") depth -= 1;
  }
  return deepest;
}
