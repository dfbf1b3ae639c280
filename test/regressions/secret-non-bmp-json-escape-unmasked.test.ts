// Broken (red team of #20, fourteenth pass, redaction of encoded secrets): a job secret holding a
// character outside the BMP (an operator's passphrase with an emoji, `pass😀word-2024`) echoed back
// JSON-escaped as PHP's json_encode and Python's json.dumps write it by default (`\ud83d\ude00`, a
// surrogate pair) is not masked: `createRedactor([secret])` returns the text unchanged. In
// src/util/redact.ts › encodedChar, `[...secret]` gives the emoji as one 2-unit string, so the
// `\uXXXX` way is added only `if (char.length === 1)` and JSON.stringify leaves it raw: no form
// covers the escaped pair (an accented `é`, one unit, is masked as `\u00e9`).
// What should hold: "masked ... JSON-escaped (`\uXXXX` in either case, as PHP and Go write them)"
// (redact.ts) holds for every character of the secret: a character outside the BMP as its surrogate
// pair of `\uXXXX` escapes, in either hex case.
// Fixed: a character outside the BMP is also matched as its two `\uXXXX` surrogate escapes (redact.ts › encodedChar).
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";

const SECRET = "pass\u{1F600}word-2024";
const redact = createRedactor([SECRET]);

/** JSON with every non-ASCII UTF-16 unit escaped (PHP's json_encode, Python's json.dumps defaults). */
function asciiJson(text: string, upper = false): string {
  return JSON.stringify(text).replace(/[\u0080-\uffff]/g, (unit) => {
    const hex = unit.charCodeAt(0).toString(16).padStart(4, "0");
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

describe("a job secret with a character outside the BMP", () => {
  it("is masked as written (control)", () => {
    expect(redact(`key=${SECRET}`)).toBe("key=[REDACTED]");
  });

  it("is masked JSON-escaped as a surrogate pair (lowercase hex)", () => {
    const echoed = `{"error":"bad passphrase","got":${asciiJson(SECRET)}}`;
    expect(echoed).toContain("pass\\ud83d\\ude00word-2024");
    expect(redact(echoed)).not.toContain("word-2024");
  });

  it("is masked JSON-escaped as a surrogate pair (uppercase hex)", () => {
    expect(redact(`got ${asciiJson(SECRET, true)}`)).not.toContain("word-2024");
  });
});
