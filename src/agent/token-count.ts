import { TackleError } from "../errors/tackle-error.js";

/**
 * A token count a model server reported, as the job's meter and the daily ledger can add it: the one
 * check of usage numbers for every provider (accumulateMessage for the Anthropic API, Bedrock and
 * Vertex; accumulateChatCompletion for OpenAI-compatible servers).
 *
 * Absent (`undefined` or `null`) is 0: servers leave out counts that do not apply, and OpenAI-compatible
 * ones may send no usage at all. Anything else must be a non-negative safe integer. A negative count
 * would lower the job's spend, a string or 1e309 (Infinity once parsed) would make it NaN or Infinity,
 * and each stops the budget checks from tripping; a count made up in its place (0, a clamp) would hide
 * that the response's cost is unknown. So such a value rejects with a `model_api` TackleError naming
 * the field and the value, not retryable: the response was billed already, and a server that reports
 * nonsense once reports it again.
 *
 * @param field where the count was, for the error (`usage.output_tokens of message_delta`)
 * @param source who sent it, for the error (`Anthropic API`, `Bedrock`, `Vertex AI`, `OpenAI-compatible API`)
 */
export function tokenCount(value: unknown, field: string, source: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return value;
  throw new TackleError(
    "model_api",
    `${source} reported ${field} = ${shown(value)}, which is not a token count (a whole number from 0 to 2^53 - 1): the response's cost cannot be counted, so it is refused`,
  );
}

/** The value as the error shows it: short, whatever the server sent. */
function shown(value: unknown): string {
  const text = typeof value === "string" ? JSON.stringify(value.slice(0, 41)) : typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
