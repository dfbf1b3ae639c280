import { TackleError } from "../errors/index.js";

/** The limits of one outbound exchange (see HttpLimits in create-http-client.ts). */
export type HttpLimitName = "maxBytes" | "deadlineMs" | "idleMs" | "maxEventBytes" | "maxJsonValues" | "answersInFlight" | "streamsOpened";

/** An outbound response that broke one of the HTTP client's limits; its socket is already destroyed. */
export class HttpLimitError extends TackleError {
  readonly limit: HttpLimitName;

  constructor(limit: HttpLimitName, message: string) {
    super("fetch_limit", message, { retryable: false });
    this.name = "HttpLimitError";
    this.limit = limit;
  }
}

export function isHttpLimitError(error: unknown, limit?: HttpLimitName): error is HttpLimitError {
  return error instanceof HttpLimitError && (limit === undefined || error.limit === limit);
}
