// A worker process killed with SIGKILL mid-job: another worker reruns the job on the same branch, edits
// the same tracking comment and opens one PR. Real bins, real BullMQ on a private Redis.
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startFakeAnthropic, startFakeGitHub } from "../../fakes/index.js";
import { startOwnRedis } from "../queue/redis-server.js";
import { binWebhookUrl, demoRepoFiles, fixTemperatureScript, OWNER, REPO, tempDirIn } from "./harness.js";
import { turnIndex } from "./script-helpers.js";
import { sendAssigned } from "./trigger-helpers.js";

const CLI = path.resolve("dist/cli.js");
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

function spawnBin(args: string[], env: Record<string, string>): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr!.on("data", (c: Buffer) => (output += c.toString()));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGKILL");
      await exited;
    }
  });
  return Object.assign(child, { output: () => output });
}

async function waitForOutput(child: { output: () => string }, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(child.output());
    if (match) return match;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const tempDir = (prefix: string): Promise<string> => tempDirIn(cleanups, prefix);

describe("worker crash", () => {
  it("SIGKILL mid-job: another worker reruns it; one PR, one tracking comment, final state reached", async () => {
    const redis = await startOwnRedis();
    cleanups.push(() => redis.stop());
    const gh = await startFakeGitHub();
    cleanups.push(() => gh.close());
    await gh.addRepo({ owner: OWNER, name: REPO, files: await demoRepoFiles() });
    gh.setPermission(OWNER, REPO, "alice", "write");
    const issue = gh.addIssue({ owner: OWNER, repo: REPO, title: "celsiusToFahrenheit(100) returns 203" });

    // The first attempt hangs in its third model call, after it has edited its checkout.
    const turns = fixTemperatureScript();
    let conversations = 0;
    let firstAttemptStuck = false;
    const model = await startFakeAnthropic(
      async (request) => {
        const index = turnIndex(request);
        if (index === 0) conversations += 1;
        if (conversations === 1 && index === 2) {
          firstAttemptStuck = true;
          await new Promise(() => undefined);
        }
        return turns[Math.min(index, turns.length - 1)]!;
      },
      { minCacheableTokens: 0 },
    );
    cleanups.push(() => model.close());

    const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...gh.appEnv(), ...model.env(), REDIS_URL: redis.url, LOG_LEVEL: "warn" };
    const serverHome = await tempDir("tackle-crash-server-");
    const server = spawnBin(["server"], { ...base, HOME: serverHome, TACKLE_HOME: serverHome, PORT: "0" });
    const port = Number((await waitForOutput(server, /listening on port (\d+)/))[1]);
    expect(server.output()).toContain("queue: bullmq");

    // Two "machines": each worker has its own TACKLE_HOME.
    const homeA = await tempDir("tackle-crash-a-");
    const workerA = spawnBin(["worker", "--lock-seconds", "2"], { ...base, HOME: homeA, TACKLE_HOME: homeA });
    await waitForOutput(workerA, /consuming bullmq jobs/);

    const response = await sendAssigned(binWebhookUrl(port), gh, issue.number);
    expect(response.status).toBe(200);
    await expect.poll(() => firstAttemptStuck, { timeout: 30_000 }).toBe(true);

    const killed = new Promise((resolve) => workerA.once("exit", (_code, signal) => resolve(signal)));
    process.kill(workerA.pid!, "SIGKILL");
    expect(await killed).toBe("SIGKILL");

    const homeB = await tempDir("tackle-crash-b-");
    const workerB = spawnBin(["worker", "--lock-seconds", "2"], { ...base, HOME: homeB, TACKLE_HOME: homeB });
    await waitForOutput(workerB, /consuming bullmq jobs/);

    const botComments = () => gh.comments(OWNER, REPO, issue.number).filter((c) => c.user === gh.botLogin);
    await expect.poll(() => botComments().some((c) => c.body.includes("Tackle finished")), { timeout: 90_000, interval: 250 }).toBe(true);
    expect(conversations).toBe(2);
    expect(botComments().filter((c) => c.body.includes("tackle:tracking"))).toHaveLength(1);
    expect(gh.pulls(OWNER, REPO)).toHaveLength(1);
    expect(await gh.readFile(OWNER, REPO, `tackle/issue-${issue.number}`, "src/temperature.js")).toContain("/ 5 + 32;");
  }, 180_000);
});
