// Broken (red team of #20, seventeenth pass, artifacts): UploadArtifact stores a file that holds one
// of the job's secrets whenever the file is not valid UTF-8 text. maskBytes (src/util/redact.ts) treats
// such a file as binary and looks for the secret only in its latin1 view: (a) a secret with any
// non-ASCII character, written in UTF-8 (as every other sink writes it) into a file with a single NUL
// or stray byte, reads as `pÃ¤ss…` there and is not found; (b) a UTF-16 text file (a BOM, as
// PowerShell's `Out-File` and many Windows tools write logs) holding an ASCII secret reads as
// `s\0e\0c\0…` and is not found. Either way the artifact is stored and served unchanged by the dashboard.
// Fixed: a binary artifact is searched as latin1, as UTF-8 among other bytes, and as UTF-16LE/BE at both
// alignments (redact.ts › maskBytes, binaryViews).
// What should hold: "a binary file holding one of the job's secrets (or a token's shape) is refused"
// (README, Artifacts): the check looks for the secret in the encodings the bytes may hold (its UTF-8
// bytes, UTF-16LE/BE), not only in latin1.
import { describe, expect, it } from "vitest";
import { createRedactor } from "../../src/util/redact.js";
import { maskArtifact } from "../../src/worker/job-recording.js";

/** What the store would receive for `content`, or null when the upload is refused. */
function stored(content: Buffer, secret: string): Buffer | null {
  try {
    return maskArtifact(content, createRedactor([secret]));
  } catch {
    return null;
  }
}

describe("an artifact that is not UTF-8 text, holding a job secret", () => {
  it("a UTF-8 text file with the secret is masked (control)", () => {
    const secret = "p\u00e4ssw\u00f6rd-2024-operator";
    const out = stored(Buffer.from(`password=${secret}\n`, "utf8"), secret);
    expect(out?.toString("utf8")).not.toContain(secret);
  });

  it("a binary file with an ASCII secret is refused (control)", () => {
    const secret = "s3cr3t-operator-value-8f2a91";
    expect(stored(Buffer.concat([Buffer.from([0, 1, 2]), Buffer.from(secret)]), secret)).toBeNull();
  });

  it("a non-ASCII secret in UTF-8 inside a file with one NUL byte is refused", () => {
    const secret = "p\u00e4ssw\u00f6rd-2024-operator";
    const content = Buffer.concat([Buffer.from(`password=${secret}\n`, "utf8"), Buffer.from([0])]);
    const out = stored(content, secret);
    expect(out === null || !out.includes(Buffer.from(secret, "utf8"))).toBe(true);
  });

  it("an ASCII secret in a UTF-16LE text file (with BOM) is refused or masked", () => {
    const secret = "s3cr3t-operator-value-8f2a91";
    const content = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`token=${secret}\r\n`, "utf16le")]);
    const out = stored(content, secret);
    expect(out === null || !out.toString("utf16le").includes(secret)).toBe(true);
  });
});
