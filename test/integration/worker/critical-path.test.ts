// The first model turn waits for the workspace, and the workspace waits only for the job's target:
// which branch to work on. Asking for it after the repository's default branch put two GitHub round
// trips before the checkout; it is asked beside that read now.
import { afterEach, expect, it } from "vitest";
import { processJob } from "../../../src/worker/index.js";
import { OWNER, REPO, startJobWorld, type JobWorld } from "../e2e/harness.js";

let world: JobWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

it("the target's pull request lookup is in flight while the repository read is, not after it", async () => {
  world = await startJobWorld([{ content: [{ type: "tool_use", name: "task_done", input: { summary: "nothing to change" } }], stop_reason: "tool_use" }]);
  const { gh, data, deps } = world;
  // Every answer takes 300 ms: a lookup sent only after the repository read was answered arrives later
  // than that. Comments take 2 s, so a fetch that waited for one would start well after its answer.
  gh.setLatency(({ method, path }) => (method === "POST" && /\/issues\/\d+\/comments$/.test(path) ? 2_000 : 300));

  const outcome = await processJob(data, deps, new AbortController().signal);

  expect(outcome.status).toBe("no_changes");
  const repoRead = gh.requests({ method: "GET", path: new RegExp(`^/api/v3/repos/${OWNER}/${REPO}$`) })[0]!;
  const pullLookup = gh.requests({ method: "GET", path: new RegExp(`^/api/v3/repos/${OWNER}/${REPO}/pulls$`) })[0]!;
  expect(pullLookup.query.head).toBe(`${OWNER}:tackle/issue-${data.number}`);
  expect(pullLookup.at).toBeLessThan(repoRead.at + repoRead.durationMs);
  // The checkout's fetch follows the lookup's answer, not a comment write.
  const firstFetch = gh.requests({ path: /\.git\/info\/refs$/ })[0]!;
  const firstComment = gh.requests({ method: "POST", path: /\/issues\/\d+\/comments$/ })[0]!;
  expect(firstFetch.at).toBeGreaterThanOrEqual(pullLookup.at + 300);
  expect(firstFetch.at).toBeLessThan(firstComment.at + firstComment.durationMs);
});
