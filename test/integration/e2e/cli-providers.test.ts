// The built `tackle` bin on each cloud provider: the Bedrock and Vertex SDKs are loaded from their own
// chunks when first used, so this checks the bundle (not only the sources) reaches each fake and finishes.
import { readFile } from "node:fs/promises";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeBedrock } from "../../fakes/fake-bedrock.js";
import { startFakeVertex } from "../../fakes/fake-vertex.js";
import { CLI, localDemoRepo, runCli, shellEnv } from "./cli-process.js";
import { fixTemperatureScript, tempDirIn } from "./harness.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

beforeAll(async () => {
  // `npm test` builds first; fail loudly rather than test a stale bundle.
  await readFile(CLI);
});

async function expectFixedOnLocalBranch(repo: { git: (...args: string[]) => Promise<string> }): Promise<void> {
  const branch = (await repo.git("branch", "--list", "tackle/local-*")).trim().replace(/^[*+ ]+/, "");
  expect(branch).toMatch(/^tackle\/local-/);
  expect(await repo.git("show", `${branch}:src/temperature.js`)).toContain("/ 5 + 32;");
}

describe("tackle run --local on a cloud provider (the built bin)", () => {
  it("TACKLE_PROVIDER=bedrock: signed requests from the bundled Bedrock SDK; exits 0 with the fix committed", async () => {
    const bedrock = await startFakeBedrock(fixTemperatureScript());
    cleanups.push(() => bedrock.close());
    const home = await tempDirIn(cleanups, "tackle-bedrock-home-");
    const repo = await localDemoRepo((prefix) => tempDirIn(cleanups, prefix));
    const result = await runCli(["run", "--local", repo.dir, "--task", "celsiusToFahrenheit(100) returns 203"], {
      env: shellEnv(home, { TACKLE_HOME: home, ...bedrock.env(), TACKLE_MODEL: "global.anthropic.claude-sonnet-4-6" }),
    });
    expect(result.stderr).not.toMatch(/tackle: (?!warning)/);
    expect(result.code).toBe(0);
    await expectFixedOnLocalBranch(repo);
    expect(bedrock.requests.length).toBe(fixTemperatureScript().length);
    expect(bedrock.requests.every((r) => r.signature.ok && r.modelId === "global.anthropic.claude-sonnet-4-6")).toBe(true);
  });

  it("TACKLE_PROVIDER=vertex: the bundled Google auth exchanges the credentials file's token; exits 0 with the fix committed", async () => {
    const vertex = await startFakeVertex(fixTemperatureScript());
    cleanups.push(() => vertex.close());
    const home = await tempDirIn(cleanups, "tackle-vertex-home-");
    const credentials = await vertex.writeCredentials(home);
    const repo = await localDemoRepo((prefix) => tempDirIn(cleanups, prefix));
    const result = await runCli(["run", "--local", repo.dir, "--task", "celsiusToFahrenheit(100) returns 203"], {
      env: shellEnv(home, { TACKLE_HOME: home, ...vertex.env(credentials) }),
    });
    expect(result.stderr).not.toMatch(/tackle: (?!warning)/);
    expect(result.code).toBe(0);
    await expectFixedOnLocalBranch(repo);
    expect(vertex.tokenExchanges.filter((exchange) => exchange.issued)).not.toHaveLength(0);
    expect(vertex.requests.length).toBe(fixTemperatureScript().length);
    expect(vertex.requests.every((r) => r.authorized && r.model === "claude-sonnet-4-6")).toBe(true);
  });

  it("a cloud provider without its region: exit 2 and the variable to set, before any work", async () => {
    const home = await tempDirIn(cleanups, "tackle-noregion-home-");
    const repo = await localDemoRepo((prefix) => tempDirIn(cleanups, prefix));
    const result = await runCli(["run", "--local", repo.dir, "--task", "x"], { env: shellEnv(home, { TACKLE_HOME: home, TACKLE_PROVIDER: "vertex" }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("TACKLE_PROVIDER=vertex is not set up:\n- `CLOUD_ML_REGION`: required with TACKLE_PROVIDER=vertex");
    expect((await repo.git("branch", "--list", "tackle/local-*")).trim()).toBe("");
  });
});
