import { describe, expect, it } from "vitest";
import { maskUrl, urlSecrets } from "../../../src/logging/mask-url.js";
import { createRedactor } from "../../../src/util/redact.js";

describe("maskUrl", () => {
  it("masks the password of the user info, with or without a user name, and leaves the rest as written", () => {
    expect(maskUrl("redis://:s3cret-pass@redis:6379")).toBe("redis://:[REDACTED]@redis:6379");
    expect(maskUrl("rediss://default:p%40ss@cache.example.com:6380/2")).toBe("rediss://default:[REDACTED]@cache.example.com:6380/2");
  });

  it("reads the user info up to the last @, as URL parsers do, so no piece of a password with a raw @ is left", () => {
    expect(maskUrl("redis://:p@ss@host:6379")).toBe("redis://:[REDACTED]@host:6379");
  });

  it("masks credentials in query parameters (ioredis takes ?password= as the password)", () => {
    expect(maskUrl("redis://redis:6379/0?password=s3cret&family=6")).toBe("redis://redis:6379/0?password=[REDACTED]&family=6");
    expect(maskUrl("/run/redis.sock?db=2&password=s3cret")).toBe("/run/redis.sock?db=2&password=[REDACTED]");
  });

  it("masks what ioredis accepts without a scheme, and what does not parse as a URL", () => {
    expect(maskUrl("default:s3cret@redis:6379")).toBe("default:[REDACTED]@redis:6379");
    // Port out of range: not a URL to the parser.
    expect(maskUrl("redis://:s3cret@host:99999")).toBe("redis://:[REDACTED]@host:99999");
  });

  it("leaves text without credentials as it is", () => {
    for (const text of ["redis://127.0.0.1:6379", "redis://user@host:1", "not a url", "https://example.com/a:b@c", ""]) {
      expect(maskUrl(text)).toBe(text);
    }
  });

  it("is left alone by the log redactor, so a masked URL reads the same in a log line", () => {
    const masked = maskUrl("redis://:s3cret-pass@redis:6379");
    expect(createRedactor([])(masked)).toBe(masked);
  });
});

describe("urlSecrets", () => {
  it("returns the password as written and as sent, and secret query parameters", () => {
    expect(urlSecrets("redis://u:p%40ssword-1@h:1?password=other-secret")).toEqual(["other-secret", "p%40ssword-1", "p@ssword-1"]);
  });

  it("returns nothing for text without a URL or a URL without credentials", () => {
    expect(urlSecrets("/usr/bin")).toEqual([]);
    expect(urlSecrets("https://api.github.com")).toEqual([]);
    expect(urlSecrets("http://%zz")).toEqual([]);
  });
});
