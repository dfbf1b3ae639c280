import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { rgPath } from "@vscode/ripgrep";
import { environmentSecrets } from "../logging/environment-secrets.js";
import { maskUrl } from "../logging/mask-url.js";
import { createRedactor } from "../util/redact.js";
import { currentIdentity, detectSandbox, rootGroupProblem, rootGroupRefusal } from "../workspace/index.js";
import { checkModelProvider } from "./check-model-provider.js";
import { modelProviderChecks } from "./model-provider-checks.js";
import { operatorSecretChecks } from "./operator-secret-checks.js";

const run = promisify(execFile);

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

async function version(command: string, args: string[]): Promise<string | null> {
  try {
    const { stdout } = await run(command, args, { timeout: 5000 });
    return stdout.trim().split("\n")[0] ?? "";
  } catch {
    return null;
  }
}

/**
 * `tackle doctor`: what Tackle needs on this machine, and how to fix what is missing. No secret in
 * any line: URLs are shown with their password masked.
 */
export async function runDoctor(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const checks: Check[] = [];
  const git = await version("git", ["--version"]);
  checks.push(git ? { name: "git", ok: true, detail: git } : { name: "git", ok: false, detail: "not found", fix: "apt-get install git" });

  const sandbox = await detectSandbox();
  checks.push(
    sandbox.available
      ? { name: "bubblewrap", ok: true, detail: sandbox.detail }
      : {
          name: "bubblewrap",
          ok: env.TACKLE_SANDBOX === "off",
          detail: `${sandbox.detail}${env.TACKLE_SANDBOX === "off" ? " (TACKLE_SANDBOX=off: jobs run unsandboxed)" : ""}`,
          fix: "apt-get install bubblewrap (in Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or a profile that allows user namespaces); or set TACKLE_SANDBOX=off to run without isolation",
        },
  );
  const keptGroup = rootGroupProblem();
  if (keptGroup !== null) {
    const refusal = rootGroupRefusal(currentIdentity(), sandbox.available);
    checks.push({
      name: "group",
      ok: refusal === null,
      detail: refusal ?? `${keptGroup}, over what bubblewrap binds read-only`,
      fix: "run Tackle with a group of its own (Docker: --user 10001:10001; Kubernetes: runAsGroup), not group 0",
    });
  }
  const rg = await version(rgPath, ["--version"]);
  checks.push(rg ? { name: "ripgrep", ok: true, detail: rg } : { name: "ripgrep", ok: false, detail: `${rgPath} does not run`, fix: "reinstall with npm ci" });

  if (env.REDIS_URL) {
    // Loaded only when REDIS_URL is set. A module of ours, not ioredis itself: in the split bundle a
    // dynamic import of a CommonJS package has only a default export.
    const { pingRedis } = await import("../jobs/redis-connection.js");
    const ping = await pingRedis(env.REDIS_URL);
    const where = maskUrl(env.REDIS_URL);
    checks.push(
      ping.ok
        ? { name: "redis", ok: true, detail: `${where} answers PING` }
        : { name: "redis", ok: false, detail: `${where}: error: ${ping.reason}`, fix: "start redis-server or fix REDIS_URL" },
    );
  } else {
    checks.push({ name: "redis", ok: true, detail: "REDIS_URL unset: the server runs jobs in-process" });
  }
  // The chosen provider's settings and where its credentials come from, never their values; an
  // OpenAI-compatible server is asked whether it answers and serves TACKLE_MODEL.
  checks.push(...modelProviderChecks(env));
  if (env.TACKLE_PROVIDER?.trim().toLowerCase() === "openai") checks.push(...(await checkModelProvider(env)));
  checks.push(...operatorSecretChecks(env));
  const appReady = Boolean(env.APP_ID && (env.PRIVATE_KEY || env.PRIVATE_KEY_PATH) && env.WEBHOOK_SECRET);
  checks.push(
    appReady
      ? { name: "GitHub App", ok: true, detail: `APP_ID ${env.APP_ID}` }
      : {
          name: "GitHub App",
          ok: false,
          detail: "APP_ID, PRIVATE_KEY(_PATH) or WEBHOOK_SECRET missing (needed by `tackle server`)",
          fix: "run `tackle setup` (it registers the App from app.yml and writes .env, which `tackle server` and `tackle worker` read; doctor does not), or export its credentials",
        },
  );
  // Every line is printed: whatever a tool or Redis echoed back, no credential of this process goes out.
  const redact = createRedactor(environmentSecrets(env));
  return checks.map((check) => ({
    ...check,
    detail: redact(check.detail),
    ...(check.fix === undefined ? {} : { fix: redact(check.fix) }),
  }));
}
