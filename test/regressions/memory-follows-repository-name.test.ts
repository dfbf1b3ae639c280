// Memory was keyed by `host/owner/repo`, a name GitHub frees at once on a rename or a deletion: a new
// repository created under the old name read (and steered its jobs by) the old one's memory. Memory is now
// keyed by the repository's numeric id, as GitHub answers for the name when the job starts
// (src/worker/process-job.ts sessionExtras, src/workspace/repo-key.ts formatRepoKey); names are kept beside,
// only for `tackle memory --repo`.
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../src/jobs/index.js";
import { silentLogger } from "../../src/logging/logger.js";
import { repoId } from "../fakes/github-json.js";
import type { ScriptedModel, ScriptedTurn } from "../fakes/index.js";
import { OWNER, REPO, startHarness, type Harness } from "../integration/e2e/harness.js";
import { firstUserText, turnIndex } from "../integration/e2e/script-helpers.js";
import { assign } from "../integration/e2e/trigger-helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

const turn = (name: string, input: unknown): ScriptedTurn => ({ content: [{ type: "tool_use", name, input }], stop_reason: "tool_use" });
const NOTE = { name: "release-steps", description: "How this repository releases", content: "Tag, then run the release workflow." };
const SCRIPTS: Record<string, ScriptedTurn[]> = {
  "Write down the release": [turn("MemoryWrite", NOTE), turn("task_done", { summary: "Noted." })],
  "Look around": [turn("task_done", { summary: "Looked." })],
};
const script: ScriptedModel = (request) => {
  const turns = Object.entries(SCRIPTS).find(([title]) => firstUserText(request).includes(title))?.[1] ?? [];
  return turns[Math.min(turnIndex(request), turns.length - 1)]!;
};

/** Runs a job on a new issue; the memory index its first request showed the model ("" when none). */
async function job(h: Harness, title: string): Promise<string> {
  const issue = h.gh.addIssue({ owner: OWNER, repo: REPO, title, user: "alice" });
  expect((await assign(h, issue.number)).status).toBe(200);
  await h.app.queue.idle();
  const first = h.model.requests.find((r) => turnIndex(r.body) === 0 && firstUserText(r.body).includes(`#${issue.number}`));
  return /<repository_memory[^>]*>[\s\S]*?<\/repository_memory>/.exec(firstUserText(first?.body))?.[0] ?? "";
}

describe("memory and the repository's name", () => {
  it("a new repository under a deleted one's name does not see its memory; the repository itself, under any name, does", async () => {
    const h = await startHarness({ script });
    cleanups.push(() => h.close());
    const original = repoId(OWNER, REPO);

    expect(await job(h, "Write down the release")).toBe("");
    expect(await job(h, "Look around (same repository)")).toContain(NOTE.name);

    // octo/widgets is deleted and a new repository is created under the name: GitHub gives it a new id.
    h.gh.setRepoId(OWNER, REPO, original + 1_000_003);
    expect(await job(h, "Look around (a new repository)")).toBe("");

    // The first repository is renamed back to the name: its id, and so its memory, came with it.
    h.gh.setRepoId(OWNER, REPO, original);
    expect(await job(h, "Look around (renamed back)")).toContain(NOTE.name);

    // The operator's view follows the name to the id the last job saw.
    const store = createMemoryStore({ home: h.home, logger: silentLogger });
    cleanups.push(() => store.close());
    expect(await store.idOf(h.env.GHE_HOST!, `${OWNER}/${REPO}`)).toBe(original);
  }, 120_000);
});
