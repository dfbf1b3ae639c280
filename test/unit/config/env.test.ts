import { describe, expect, it } from "vitest";
import { isTackleError } from "../../../src/errors/index.js";
import { loadBotName, loadEnv, parseEnv, type EnvVars } from "../../../src/config/index.js";

const PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabcdef\n-----END RSA PRIVATE KEY-----";

const app = {
  APP_ID: "12345",
  PRIVATE_KEY: PEM.replace(/\n/g, "\\n"),
  WEBHOOK_SECRET: "s3cret",
  ANTHROPIC_API_KEY: "sk-ant-test",
};

const noFiles = (path: string): string => {
  throw new Error(`ENOENT: no such file or directory, open '${path}'`);
};

function problems(env: EnvVars, mode: "server" | "worker" | "local" | "action"): string[] {
  const result = parseEnv(env, { mode, readFile: noFiles, homeDir: "/home/op" });
  if (result.ok) throw new Error("expected problems");
  return result.problems;
}

describe("loadEnv: server", () => {
  it("loads the App and the defaults", () => {
    const env = loadEnv(app, { mode: "server", homeDir: "/home/op" });
    expect(env.app).toEqual({ appId: 12345, privateKey: `${PEM}\n`, webhookSecret: "s3cret" });
    expect(env).toMatchObject({
      mode: "server",
      ghe: null,
      githubApiUrl: "https://api.github.com",
      githubServerUrl: "https://github.com",
      port: 3000,
      anthropicApiKey: "sk-ant-test",
      anthropicBaseUrl: null,
      model: "claude-sonnet-4-6",
      allowedModels: ["claude-sonnet-4-6"],
      redisUrl: null,
      home: "/home/op/.tackle",
      sandbox: "required",
      botName: null,
      logLevel: "info",
      githubToken: null,
    });
    expect(env.gitUrl("octo", "hello")).toBe("https://github.com/octo/hello.git");
  });

  it("turns the dashboard on with TACKLE_DASHBOARD_TOKEN, and refuses a short one without showing it", () => {
    expect(loadEnv(app, { mode: "server", homeDir: "/home/op" }).dashboardToken).toBeNull();
    expect(loadEnv({ ...app, TACKLE_DASHBOARD_TOKEN: " 0123456789abcdef0123 " }, { mode: "server" }).dashboardToken).toBe("0123456789abcdef0123");
    expect(problems({ ...app, TACKLE_DASHBOARD_TOKEN: "short-secret" }, "server")).toEqual([
      "`TACKLE_DASHBOARD_TOKEN`: expected at least 16 characters without spaces (e.g. `openssl rand -hex 32`)",
    ]);
  });

  it("reads the operator's secrets with their scopes, and lists a scope that does not parse with the other problems", () => {
    const env = loadEnv({ ...app, TACKLE_SECRET_DOCS: "d0cs", TACKLE_SECRET_DOCS_REPOS: "octo/*" }, { mode: "server" });
    expect(env.operatorSecrets.get("TACKLE_SECRET_DOCS")).toEqual({ value: "d0cs", repos: ["octo/*"], hosts: [] });
    expect(problems({ ...app, PORT: "x", TACKLE_SECRET_DOCS: "d0cs", TACKLE_SECRET_DOCS_REPOS: "*" }, "server")).toEqual([
      '`PORT`: expected a port number from 0 to 65535 (0: any free port), got "x"',
      "`TACKLE_SECRET_DOCS_REPOS`: `*` is not a repository pattern: expected `owner/name` or `owner/*` (a secret goes only to repositories named here)",
    ]);
  });

  it("defaults to server mode", () => {
    expect(() => loadEnv({})).toThrow(/APP_ID/);
  });

  it("lists every missing variable in one error", () => {
    let thrown: unknown;
    try {
      loadEnv({}, { mode: "server", readFile: noFiles });
    } catch (error) {
      thrown = error;
    }
    expect(isTackleError(thrown, "env_invalid")).toBe(true);
    const message = (thrown as Error).message;
    expect(message).toContain("(4 problems)");
    for (const name of ["APP_ID", "PRIVATE_KEY", "WEBHOOK_SECRET", "ANTHROPIC_API_KEY"]) expect(message).toContain(name);
  });

  it("reports bad values and missing ones together, hiding secret values", () => {
    expect(
      problems(
        {
          APP_ID: "abc",
          PORT: "99999",
          GHE_HOST: "https://ghe.example.com",
          REDIS_URL: "http://user:hunter2@redis:6379",
          LOG_LEVEL: "loud",
          TACKLE_SANDBOX: "on",
        },
        "server",
      ),
    ).toEqual([
      '`APP_ID`: expected the App\'s numeric id, got "abc"',
      '`GHE_HOST`: expected a host name such as github.example.com, without protocol or path, got "https://ghe.example.com"',
      '`PORT`: expected a port number from 0 to 65535 (0: any free port), got "99999"',
      // A URL's password is masked: the value is shown, its credential never is.
      '`REDIS_URL`: expected a redis:// or rediss:// URL, got "http://user:[REDACTED]@redis:6379"',
      '`TACKLE_SANDBOX`: expected `off`, or unset, got "on"',
      '`LOG_LEVEL`: expected one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      "`WEBHOOK_SECRET`: required in server mode",
      "`PRIVATE_KEY` or `PRIVATE_KEY_PATH`: required in server mode",
    ]);
  });

  it("reads PRIVATE_KEY_PATH, and says when it cannot", () => {
    const { PRIVATE_KEY: _unused, ...withoutKey } = app;
    const env = loadEnv(
      { ...withoutKey, PRIVATE_KEY_PATH: "/keys/app.pem" },
      { mode: "server", readFile: (path) => (path === "/keys/app.pem" ? `${PEM}\n` : noFiles(path)) },
    );
    expect(env.app.privateKey).toBe(`${PEM}\n`);
    expect(problems({ ...withoutKey, PRIVATE_KEY_PATH: "/nope.pem" }, "server")).toEqual([
      "`PRIVATE_KEY_PATH`: cannot read /nope.pem: ENOENT: no such file or directory, open '/nope.pem'",
    ]);
  });

  it("accepts a key still quoted as `tackle setup` writes it to .env (docker run --env-file keeps the quotes)", () => {
    const env = loadEnv({ ...app, PRIVATE_KEY: `"${app.PRIVATE_KEY}"` }, { mode: "server" });
    expect(env.app.privateKey).toBe(`${PEM}\n`);
  });

  it("accepts a base64 key and refuses one that is not PEM", () => {
    const env = loadEnv({ ...app, PRIVATE_KEY: Buffer.from(PEM).toString("base64") }, { mode: "server" });
    expect(env.app.privateKey).toBe(`${PEM}\n`);
    expect(problems({ ...app, PRIVATE_KEY: "not a key" }, "server")).toEqual([
      "`PRIVATE_KEY`: expected a PEM private key (-----BEGIN … PRIVATE KEY-----), with line breaks or literal \\n",
    ]);
  });

  it("does not need a model key when jobs go to Redis", () => {
    const { ANTHROPIC_API_KEY: _unused, ...withoutModelKey } = app;
    const env = loadEnv({ ...withoutModelKey, REDIS_URL: "redis://localhost:6379" }, { mode: "server" });
    expect(env.anthropicApiKey).toBeNull();
    expect(() => loadEnv({ ...withoutModelKey, REDIS_URL: "redis://localhost:6379" }, { mode: "server", runsJobs: true })).toThrow(/ANTHROPIC_API_KEY/);
  });

  it("builds GitHub Enterprise Server URLs", () => {
    const env = loadEnv({ ...app, GHE_HOST: "ghe.example.com" }, { mode: "server" });
    expect(env.ghe).toEqual({ host: "ghe.example.com", protocol: "https" });
    expect(env.githubApiUrl).toBe("https://ghe.example.com/api/v3");
    expect(env.gitUrl("octo", "hello")).toBe("https://ghe.example.com/octo/hello.git");

    const plain = loadEnv({ ...app, GHE_HOST: "ghe.local:8080", GHE_PROTOCOL: "HTTP" }, { mode: "server" });
    expect(plain.githubApiUrl).toBe("http://ghe.local:8080/api/v3");
    expect(plain.gitUrl("o", "r")).toBe("http://ghe.local:8080/o/r.git");
  });

  it("parses the remaining settings", () => {
    const env = loadEnv(
      {
        ...app,
        PORT: "8080",
        ANTHROPIC_BASE_URL: "http://localhost:9000",
        TACKLE_MODEL: "claude-opus-4-1",
        TACKLE_ALLOWED_MODELS: " claude-sonnet-4-5, ,claude-haiku-4-5 ",
        TACKLE_HOME: "~/state",
        TACKLE_SANDBOX: "off",
        TACKLE_BOT_NAME: "@helper",
        LOG_LEVEL: "debug",
        PRIVATE_KEY_PATH: "",
      },
      { mode: "server", homeDir: "/home/op" },
    );
    expect(env).toMatchObject({
      port: 8080,
      anthropicBaseUrl: "http://localhost:9000",
      model: "claude-opus-4-1",
      allowedModels: ["claude-opus-4-1", "claude-sonnet-4-5", "claude-haiku-4-5"],
      home: "/home/op/state",
      sandbox: "off",
      botName: "helper",
      logLevel: "debug",
    });
  });
});

describe("loadEnv: TACKLE_METRICS_TOKEN", () => {
  it("is off by default and read when set, for the server and the worker", () => {
    expect(loadEnv(app, { mode: "server", homeDir: "/home/op" }).metricsToken).toBeNull();
    const token = "Zq8-metrics_token.2024~x";
    expect(loadEnv({ ...app, TACKLE_METRICS_TOKEN: token }, { mode: "server", homeDir: "/home/op" }).metricsToken).toBe(token);
    const worker = { ...app, REDIS_URL: "redis://127.0.0.1:6379", TACKLE_METRICS_TOKEN: token };
    expect(loadEnv(worker, { mode: "worker", homeDir: "/home/op" }).metricsToken).toBe(token);
  });

  it("refuses a short token or one a header would not carry, without showing it", () => {
    for (const bad of ["short-token", "a token with spaces in it", "tökén-with-non-ascii-letters"]) {
      const found = problems({ ...app, TACKLE_METRICS_TOKEN: bad }, "server");
      expect(found).toEqual([
        "`TACKLE_METRICS_TOKEN`: expected at least 16 characters, printable ASCII without spaces (it is sent in an Authorization header)",
      ]);
      expect(found.join("\n")).not.toContain(bad);
    }
  });
});

describe("loadEnv: worker", () => {
  it("needs the App and Redis but no webhook secret", () => {
    const { WEBHOOK_SECRET: _unused, ...withoutSecret } = app;
    const env = loadEnv({ ...withoutSecret, REDIS_URL: "rediss://redis.example.com:6380" }, { mode: "worker" });
    expect(env.app).toEqual({ appId: 12345, privateKey: `${PEM}\n`, webhookSecret: null });
    expect(env.redisUrl).toBe("rediss://redis.example.com:6380");
  });

  it("lists what is missing", () => {
    expect(problems({}, "worker")).toEqual([
      "`APP_ID`: required in worker mode",
      "`REDIS_URL`: required in worker mode",
      "`ANTHROPIC_API_KEY`: required to run jobs in worker mode",
      "`PRIVATE_KEY` or `PRIVATE_KEY_PATH`: required in worker mode",
    ]);
  });
});

describe("loadEnv: local", () => {
  it("needs nothing", () => {
    const env = loadEnv({}, { mode: "local", homeDir: "/home/dev" });
    expect(env).toMatchObject({ mode: "local", app: null, anthropicApiKey: null, home: "/home/dev/.tackle" });
  });

  it("needs a model key when asked to run a real job", () => {
    const result = parseEnv({}, { mode: "local", runsJobs: true });
    expect(result).toEqual({ ok: false, problems: ["`ANTHROPIC_API_KEY`: required to run jobs in local mode"] });
  });

  it("refuses half an App", () => {
    expect(problems({ APP_ID: "1" }, "local")).toEqual(["`PRIVATE_KEY` or `PRIVATE_KEY_PATH`: required when APP_ID is set"]);
  });
});

describe("loadEnv: action", () => {
  const runner = {
    GITHUB_API_URL: "https://ghe.corp.example/api/v3",
    GITHUB_SERVER_URL: "https://ghe.corp.example/",
    INPUT_GITHUB_TOKEN: "ghs_token",
    INPUT_ANTHROPIC_API_KEY: "sk-ant-input",
  };

  it("takes GitHub's URLs from the runner and keys from the inputs", () => {
    const env = loadEnv(runner, { mode: "action" });
    expect(env).toMatchObject({
      app: null,
      githubApiUrl: "https://ghe.corp.example/api/v3",
      githubServerUrl: "https://ghe.corp.example",
      githubToken: "ghs_token",
      anthropicApiKey: "sk-ant-input",
    });
    expect(env.gitUrl("o", "r")).toBe("https://ghe.corp.example/o/r.git");
  });

  it("lists the missing token and key", () => {
    expect(problems({}, "action")).toEqual([
      "`ANTHROPIC_API_KEY` (or the `anthropic_api_key` input): required to run jobs in action mode",
      "`GITHUB_TOKEN` (or the `github_token` input): required in action mode",
    ]);
  });
});

describe("loadBotName (the Action reads the name before the rest)", () => {
  it.each([
    ["@helper", "helper"],
    [" robot ", "robot"],
    ["", null],
    [undefined, null],
  ])("reads %j as loadEnv does: %j", (value, name) => {
    expect(loadBotName({ TACKLE_BOT_NAME: value })).toBe(name);
    expect(loadEnv({ ...app, TACKLE_BOT_NAME: value }, { mode: "server" }).botName).toBe(name);
  });

  it.each(["my bot", "@", "-dash", "tackle!"])("refuses %j with loadEnv's own problem", (value) => {
    expect(() => loadBotName({ TACKLE_BOT_NAME: value })).toThrow(
      /^Invalid environment \(1 problem\):\n- `TACKLE_BOT_NAME`: expected a name of letters, digits and dashes/,
    );
    const parsed = parseEnv({ ...app, TACKLE_BOT_NAME: value }, { mode: "server" });
    expect(parsed.ok).toBe(false);
  });
});
