// Broken (red team of #20, eleventh pass, redaction of encoded secrets): an operator secret that reaches
// the job only as an HTTP MCP server's header (TACKLE_SECRET_API, scoped to the repository and the
// server's host) comes back in the server's answer as that server's stack encoded it: percent-encoded
// with lowercase hex (.NET's HttpUtility.UrlEncode, many loggers) or as Python's urllib.parse.quote
// writes it (`/` left as it is), or JSON-escaped as PHP writes it (`\/`). The tool result reaches the
// model through the job's redactor, the only thing between that secret and the model. Measured:
// `createRedactor([secret])` masks none of the three (src/util/redact.ts › createRedactor lists only
// encodeURIComponent's and JSON.stringify's exact output as the secret's encoded values).
// What should hold: "masks the job's secrets by value, URL-encoded, JSON-escaped and inside base64"
// (docs/security-model.md) holds for the common spellings of those encodings: percent-encoding in either
// hex case and whichever reserved characters the encoder leaves as they are, and JSON's optional `\/` escape.
// Fixed: each secret is matched character by character in its common encodings: percent-encoding in either hex case for any character an encoder may leave alone, `+` for a space, JSON's `\/` and `\uXXXX` (redact.ts › encodedForms).
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";

// An AWS-style secret access key: base64 letters with `/` and `+`, as secrets often have.
const SECRET = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLE/KEY";
const redact = createRedactor([SECRET]);

function percentLower(text: string): string {
  return encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
}

describe("a job secret echoed in another common encoding", () => {
  it("is masked percent-encoded with lowercase hex", () => {
    const echoed = `{"error":"invalid key","key":"${percentLower(SECRET)}"}`;
    expect(echoed).not.toContain(SECRET);
    expect(redact(echoed)).not.toContain(percentLower(SECRET));
  });

  it("is masked percent-encoded with `/` left unescaped (Python's quote)", () => {
    const quoted = SECRET.replace(/\+/g, "%2B");
    expect(redact(`GET /v1/check?key=${quoted} -> 401`)).not.toContain(quoted);
  });

  it("is masked JSON-escaped with `\\/` (PHP's json_encode)", () => {
    const escaped = SECRET.replace(/\//g, "\\/");
    expect(redact(`{"received":"${escaped}"}`)).not.toContain(escaped);
  });
});
