// The root logger masks every line it writes: messages, bindings, fields and serialized errors, by
// token format and, for the process's own credentials, by value. Lines stay valid JSON.
import { describe, expect, it } from "vitest";
import { createLogger } from "../../../src/logging/logger.js";
import { captureLogs, topLevelKeys } from "./log-lines.js";

const ghs = `ghs_${"aB3dE6gH9k".repeat(4).slice(0, 36)}`;

function capture(env: NodeJS.ProcessEnv = {}) {
  const lines: string[] = [];
  const logger = createLogger({ LOG_LEVEL: "debug", ...env }, { write: (line: string) => void lines.push(line) });
  return { logger, lines, records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe("createLogger", () => {
  it("writes a line containing a ghs_ token masked", () => {
    const { logger, lines } = capture();
    logger.info(`pushing with ${ghs}`);
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain(ghs);
    expect(JSON.parse(lines[0]!).msg).toBe("pushing with [REDACTED:github-token]");
    expect(lines[0]!.endsWith("\n")).toBe(true);
  });

  it("masks fields, child bindings and serialized errors, glued or after an escape", () => {
    const { logger, lines, records } = capture();
    const child = logger.child({ remote: `https://x-access-token:${ghs}@github.com/o/r.git` });
    child.warn({ header: `Authorization: Basic ${Buffer.from(`x-access-token:${ghs}`).toString("base64")}`, note: `line\n${ghs}` }, "push failed");
    child.error({ err: new Error(`git said: X${ghs}`) }, "job failed");
    for (const line of lines) expect(line).not.toContain(ghs.slice(4));
    const [warned, failed] = records();
    expect(warned!.remote).toBe("https://x-access-token:[REDACTED:github-token]@github.com/o/r.git");
    expect(warned!.header).toBe("Authorization: Basic [REDACTED]");
    expect(warned!.note).toBe("line\n[REDACTED:github-token]");
    const err = failed!.err as { message: string; stack: string };
    expect(err.message).toBe("git said: X[REDACTED:github-token]");
    expect(err.stack).toContain("X[REDACTED:github-token]");
  });

  it("keeps a line valid JSON when a cut-off private key is masked to its end", () => {
    const { logger, records } = capture();
    logger.info({ output: "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA", after: "kept" }, "setup");
    expect(records()[0]).toMatchObject({ output: "[REDACTED:private-key]", after: "kept", msg: "setup" });
  });

  it("masks the process's credentials by value, not the paths that point at them", () => {
    const { logger, lines } = capture({
      ANTHROPIC_API_KEY: "opaque-model-key-0123",
      WEBHOOK_SECRET: "webhook-secret-value",
      PRIVATE_KEY_PATH: "/etc/tackle/app.pem",
      GOOGLE_APPLICATION_CREDENTIALS: "/etc/tackle/gcp.json",
    });
    logger.info("key opaque-model-key-0123, secret webhook-secret-value, key file /etc/tackle/app.pem, credentials /etc/tackle/gcp.json");
    expect(JSON.parse(lines[0]!).msg).toBe("key [REDACTED], secret [REDACTED], key file /etc/tackle/app.pem, credentials /etc/tackle/gcp.json");
  });

  it("passes a clean line through unchanged", () => {
    const { logger, lines } = capture();
    logger.info({ jobId: "octo-widgets-1", step: "Basic setup" }, "job started");
    expect(JSON.parse(lines[0]!)).toMatchObject({ jobId: "octo-widgets-1", step: "Basic setup", msg: "job started" });
  });
});

describe("one name per line", () => {
  it("the root writes name tackle; a child bound to a name replaces it, down any depth, other bindings kept", () => {
    const { logger, lines, records } = captureLogs();
    logger.info("root");
    const probot = logger.child({ name: "probot" }).child({ name: "probot" });
    const github = probot.child({ name: "github", installation: 7 });
    github.debug({ repo: { owner: "octo", name: "widgets" } }, "GitHub request");
    logger.child({ jobId: "j-1" }).child({ tool: "Read" }).warn("tool failed");
    for (const line of lines) expect(topLevelKeys(line).filter((key) => key === "name")).toHaveLength(1);
    expect(records().map((r) => r.name)).toEqual(["tackle", "github", "tackle"]);
    expect(records()[1]).toMatchObject({ installation: 7, repo: { owner: "octo", name: "widgets" }, msg: "GitHub request" });
    expect(records()[2]).toMatchObject({ jobId: "j-1", tool: "Read" });
  });

  it("a renamed child still masks its bindings and the process's credentials", () => {
    const { logger, lines } = captureLogs({ ANTHROPIC_API_KEY: "opaque-model-key-0123" });
    logger
      .child({ name: "probot", remote: `https://x-access-token:${ghs}@github.com/o/r.git` })
      .child({ name: "github" })
      .info("key opaque-model-key-0123");
    expect(lines[0]).not.toContain(ghs);
    expect(lines[0]).not.toContain("opaque-model-key-0123");
    expect(topLevelKeys(lines[0]!).filter((key) => key === "name")).toHaveLength(1);
  });

  it("topLevelKeys sees duplicate keys that JSON.parse would merge", () => {
    expect(topLevelKeys('{"level":30,"name":"a","o":{"name":"x,y","k":["{"]},"name":"b\\"c"}')).toEqual(["level", "name", "o", "name"]);
  });
});

describe("the process's credentials", () => {
  it("include the password of a URL in any variable, masked even outside the URL", () => {
    const { logger, lines } = captureLogs({ REDIS_URL: "redis://:hunter2-redis-secret@redis:6379/0" });
    logger.warn({ reply: "ERR invalid password hunter2-redis-secret" }, "auth failed");
    expect(lines[0]).not.toContain("hunter2-redis-secret");
  });
});
