// The env loader trims the AWS variables before the SDK uses them (AWS_SECRET_ACCESS_KEY with the
// newline a secret manager or `echo` left on it), but the logger masked the value as set: the trimmed
// key the SDK sent, echoed in an error, did not match it and went into the log.
//
// Fix: the one list of environment secrets holds each value as set and trimmed.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/logging/logger.js";

const KEY = "wJalrXUtnFEMIK7MDENGbPxRfiCYzEXAMPLEKEY2";

describe("a credential set with surrounding whitespace", () => {
  it("is masked in a log line as the SDK used it, trimmed", () => {
    const lines: string[] = [];
    const logger = createLogger({ LOG_LEVEL: "info", AWS_SECRET_ACCESS_KEY: ` ${KEY}\n` }, { write: (line: string) => void lines.push(line) });
    logger.warn(`bedrock refused the signature of ${KEY}`);
    expect(lines.join("")).not.toContain(KEY);
  });
});
