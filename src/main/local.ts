import path from "node:path";
import { createReplayClient, type ModelClient } from "../agent/index.js";
import { loadEnv, missingModelSettings } from "../config/index.js";
import { environmentSecrets } from "../logging/environment-secrets.js";
import { createLogger } from "../logging/logger.js";
import { runLocal } from "../worker/index.js";
import { detectSandbox } from "../workspace/index.js";
import { modelClientFor } from "./model-client-for.js";

/** Wiring for `tackle run --local`. */
export async function runLocalCommand(
  processEnv: NodeJS.ProcessEnv,
  options: { repoPath: string; task: string; replay?: string; model?: string },
): Promise<number> {
  const env = loadEnv(processEnv, { mode: "local" });
  const logger = createLogger({ ...processEnv, LOG_LEVEL: processEnv.LOG_LEVEL ?? "warn" });
  const modelName = options.model ?? env.model;
  let model: ModelClient;
  if (options.replay) {
    model = await createReplayClient(path.resolve(options.replay));
  } else {
    if (env.provider === "anthropic" && !env.anthropicApiKey) {
      console.error("tackle: ANTHROPIC_API_KEY is not set. Export it, or use --replay FILE to run a recorded session.");
      return 2;
    }
    const missing = missingModelSettings(processEnv, "local");
    if (missing.length > 0) {
      console.error(`tackle: TACKLE_PROVIDER=${env.provider} is not set up:\n${missing.map((problem) => `- ${problem}`).join("\n")}`);
      return 2;
    }
    model = modelClientFor(env);
  }
  const sandbox = await detectSandbox();
  if (!sandbox.available) {
    console.error(`tackle: warning: bubblewrap is not available (${sandbox.detail}); commands run without a sandbox`);
  }
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  const result = await runLocal({
    repoPath: options.repoPath,
    task: options.task,
    model,
    modelName,
    home: env.home,
    sandbox: sandbox.available ? "bwrap" : "off",
    secrets: environmentSecrets(processEnv),
    clock: Date.now,
    logger,
    print: (line) => console.log(line),
    signal: controller.signal,
    fetchAllow: env.fetchAllow,
    allowedModels: env.allowedModels,
  });
  console.log(`\nbranch: ${result.branch} (${result.commits} commit${result.commits === 1 ? "" : "s"})`);
  if (result.patchPath) console.log(`patch: ${result.patchPath}`);
  console.log(`result: ${result.reason}`);
  return result.ok ? 0 : 1;
}
