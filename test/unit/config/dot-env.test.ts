import { generateKeyPairSync } from "node:crypto";
import { parse } from "dotenv";
import { describe, expect, it } from "vitest";
import { formatDotEnv, loadEnv, parseEnv, withDotEnv } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";

const file = (text: string) => (path: string) => {
  if (path !== "/srv/tackle/.env") throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: "ENOENT" });
  return text;
};

describe("withDotEnv", () => {
  it("adds the file's variables under the environment: a variable already set wins, an empty one counts as unset", () => {
    const result = withDotEnv(
      { PORT: "8080", WEBHOOK_SECRET: "", PATH: "/usr/bin" },
      { dir: "/srv/tackle", readFile: file("APP_ID=12\nPORT=3000\nWEBHOOK_SECRET=from-file\n# a comment\nHOST='127.0.0.1'\n") },
    );
    expect(result.path).toBe("/srv/tackle/.env");
    expect(result.env).toEqual({ PATH: "/usr/bin", APP_ID: "12", PORT: "8080", WEBHOOK_SECRET: "from-file", HOST: "127.0.0.1" });
    expect(result.applied).toEqual(["APP_ID", "WEBHOOK_SECRET", "HOST"]);
    expect(result.shadowed).toEqual(["PORT"]);
  });

  it("without a file, returns the environment unchanged (a copy)", () => {
    const env = { APP_ID: "1" };
    const result = withDotEnv(env, { dir: "/elsewhere", readFile: file("") });
    expect(result).toEqual({ env: { APP_ID: "1" }, path: null, applied: [], shadowed: [] });
    expect(result.env).not.toBe(env);
  });

  it("a file that exists but cannot be read is an error naming it", () => {
    const denied = () => {
      throw Object.assign(new Error("EACCES: permission denied, open '/srv/tackle/.env'"), { code: "EACCES" });
    };
    let caught: unknown;
    try {
      withDotEnv({}, { dir: "/srv/tackle", readFile: denied });
    } catch (error) {
      caught = error;
    }
    expect(isTackleError(caught, "env_invalid")).toBe(true);
    expect((caught as Error).message).toBe("cannot read /srv/tackle/.env: EACCES: permission denied, open '/srv/tackle/.env'");
  });
});

describe("formatDotEnv", () => {
  it("writes values that dotenv reads back unchanged, a PEM key on one line", () => {
    const pem = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
    const vars = {
      APP_ID: "123",
      PRIVATE_KEY: pem,
      WEBHOOK_SECRET: "a1b2+c/d=",
      WITH_SPACES: "two words # not a comment",
      WITH_QUOTES: `say "hi" \\ there`,
      WEBHOOK_PROXY_URL: "https://smee.io/AbC123",
      EMPTY: "",
    };
    const text = formatDotEnv(vars);
    expect(text.split("\n").filter(Boolean)).toHaveLength(Object.keys(vars).length);
    expect(text).toContain("APP_ID=123\n");
    expect(parse(text)).toEqual(vars);
    // And the loader that reads it takes the key as it is.
    const env = loadEnv({ ...parse(text), WEBHOOK_SECRET: "s" }, { mode: "server", runsJobs: false });
    expect(env.app.privateKey).toBe(pem);
  });

  it("refuses what it could not write back: a value with a line break and a quote, a bad name", () => {
    expect(() => formatDotEnv({ X: 'line\n"quoted"' })).toThrow(/X: the value cannot be written to .env/);
    expect(() => formatDotEnv({ "BAD NAME": "x" })).toThrow(/not a variable name/);
  });
});

describe("loadEnv: Probot's server variables", () => {
  const app = {
    APP_ID: "1",
    PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\\nabc\\n-----END RSA PRIVATE KEY-----",
    WEBHOOK_SECRET: "s",
    REDIS_URL: "redis://r:6379",
  };

  it("defaults: every interface, /api/github/webhooks, no proxy, no public URL", () => {
    const env = loadEnv(app, { mode: "server" });
    expect(env).toMatchObject({ host: null, webhookPath: "/api/github/webhooks", webhookProxyUrl: null, publicUrl: null });
  });

  it("reads HOST, WEBHOOK_PATH, WEBHOOK_PROXY_URL and TACKLE_PUBLIC_URL", () => {
    const env = loadEnv(
      { ...app, HOST: "[::1]", WEBHOOK_PATH: "/hooks/github", WEBHOOK_PROXY_URL: "https://smee.io/abc", TACKLE_PUBLIC_URL: "https://tackle.example.com/" },
      { mode: "server" },
    );
    expect(env).toMatchObject({ host: "::1", webhookPath: "/hooks/github", webhookProxyUrl: "https://smee.io/abc", publicUrl: "https://tackle.example.com" });
    expect(loadEnv({ ...app, HOST: "127.0.0.1" }, { mode: "server" }).host).toBe("127.0.0.1");
  });

  it("reports each bad value with what was expected", () => {
    const result = parseEnv(
      { ...app, HOST: "http://0.0.0.0", WEBHOOK_PATH: "hooks", WEBHOOK_PROXY_URL: "smee.io/abc", TACKLE_PUBLIC_URL: "ftp://x" },
      { mode: "server" },
    );
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems).toEqual([
      '`HOST`: expected an address to listen on, such as 127.0.0.1, ::1 or localhost, got "http://0.0.0.0"',
      '`WEBHOOK_PATH`: expected a path starting with /, such as /api/github/webhooks, got "hooks"',
      '`WEBHOOK_PROXY_URL`: expected an http(s) URL, such as https://smee.io/<channel>, got "smee.io/abc"',
      '`TACKLE_PUBLIC_URL`: expected the server\'s public http(s) URL, such as https://tackle.example.com, got "ftp://x"',
    ]);
  });

  it("WEBHOOK_SECRET is required in server mode unless the process verifies no webhooks (tackle receive)", () => {
    const { WEBHOOK_SECRET: _secret, ...noSecret } = app;
    expect(parseEnv(noSecret, { mode: "server" })).toEqual({ ok: false, problems: ["`WEBHOOK_SECRET`: required in server mode"] });
    expect(loadEnv(noSecret, { mode: "server", verifiesWebhooks: false }).app.webhookSecret).toBeNull();
  });

  it("setup mode needs nothing and never reads an App, even when APP_ID is set", () => {
    const env = loadEnv({ APP_ID: "5", GHE_HOST: "ghe.example.com" }, { mode: "setup" });
    expect(env.app).toBeNull();
    expect(env.githubApiUrl).toBe("https://ghe.example.com/api/v3");
  });
});
