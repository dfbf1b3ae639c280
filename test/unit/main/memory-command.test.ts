import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryStore } from "../../../src/jobs/index.js";
import { silentLogger } from "../../../src/logging/logger.js";
import { runMemoryCommand } from "../../../src/main/memory-command.js";
import { memory } from "../jobs/memory-store-contract.js";

/** The id jobs noted for octo/widgets on github.com; memory is keyed by it. */
const WIDGETS = "github.com/1296269";

const homes: string[] = [];
afterEach(async () => {
  for (const home of homes.splice(0)) await rm(home, { recursive: true, force: true });
});

async function setUp(extraEnv: Record<string, string> = {}) {
  const home = await mkdtemp(path.join(tmpdir(), "tackle-memory-cli-"));
  homes.push(home);
  const store = createMemoryStore({ home, logger: silentLogger });
  await store.recordName("github.com", "octo/widgets", 1296269);
  await store.recordName("ghe.example.com", "octo/widgets", 7);
  await store.recordName("other.example.com:8443", "octo/widgets", 8);
  const env = { TACKLE_HOME: home, ...extraEnv };
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runMemoryCommand(args, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, stdout: out.join("\n"), stderr: err.join("\n") };
  };
  return { home, store, run };
}

describe("tackle memory", () => {
  it("lists a repository's memories as a table, by name, and says where it looked", async () => {
    const { home, store, run } = await setUp();
    const empty = await run("list", "--repo", "octo/widgets");
    expect(empty).toEqual({
      code: 0,
      stdout: `No memories for github.com/octo/widgets (repository id 1296269) in files under ${path.join(home, "memory")} (REDIS_URL is not set).`,
      stderr: "",
    });

    await store.put(WIDGETS, memory("tests", { description: "how to run the tests", jobId: "job-2", actor: "bob" }));
    await store.put(WIDGETS, memory("build"));
    const listed = await run("list", "--repo", "Octo/Widgets");
    expect(listed.code).toBe(0);
    const lines = listed.stdout.split("\n");
    expect(lines[0]).toContain("2 of github.com/octo/widgets (repository id 1296269)'s memories");
    expect(lines[1]).toMatch(/^NAME\s+DESCRIPTION\s+UPDATED\s+JOB\s+ACTOR$/);
    expect(lines[2]).toMatch(/^build\s+what build holds\s+2025-01-02T03:04:05.000Z\s+job-1\s+alice$/);
    expect(lines[3]).toMatch(/^tests\s+how to run the tests\s+2025-01-02T03:04:05.000Z\s+job-2\s+bob$/);
    // Columns line up: each starts at the same offset on every line.
    expect(lines[2]!.indexOf("what build")).toBe(lines[1]!.indexOf("DESCRIPTION"));
    expect(lines[3]!.indexOf("job-2")).toBe(lines[1]!.indexOf("JOB"));
  });

  it("shows a memory's content with control characters escaped, so it cannot drive the terminal", async () => {
    const { store, run } = await setUp();
    await store.put(WIDGETS, memory("notes", { content: "line one\n\tindented\u001b]0;owned\u0007 \u202Eevil" }));
    await store.put(WIDGETS, memory("sneaky", { description: "looks \u202Efine" }));
    const shown = await run("show", "notes", "--repo", "octo/widgets");
    expect(shown).toEqual({ code: 0, stdout: "line one\n\tindented\\u{1b}]0;owned\\u{7} \\u{202e}evil", stderr: "" });
    expect(await run("show", "--name", "notes", "--repo", "octo/widgets")).toEqual(shown);
    const listed = await run("list", "--repo", "octo/widgets");
    expect(listed.stdout).toContain("looks \\u{202e}fine");
    expect(listed.stdout).not.toMatch(/[\u001b\u0007\u202e]/);
  });

  it("deletes a memory and says so; an unknown name exits 1 saying which", async () => {
    const { store, run } = await setUp();
    await store.put(WIDGETS, memory("build"));
    expect(await run("delete", "build", "--repo", "octo/widgets")).toEqual({
      code: 0,
      stdout: 'Deleted memory "build" of github.com/octo/widgets (repository id 1296269).',
      stderr: "",
    });
    expect(await store.get(WIDGETS, "build")).toBeNull();
    for (const action of ["delete", "show"]) {
      const missing = await run(action, "build", "--repo", "octo/widgets");
      expect(missing.code).toBe(1);
      expect(missing.stdout).toBe("");
      expect(missing.stderr).toContain('github.com/octo/widgets (repository id 1296269) has no memory "build"');
    }
  });

  it("finds the memory by the id a job last saw under the name, and says so when no job did", async () => {
    const { store, run } = await setUp();
    await store.put(WIDGETS, memory("old-repo"));
    // octo/widgets was deleted and created again: the next job notes the new repository's id.
    await store.recordName("github.com", "octo/widgets", 1400000);
    expect((await run("list", "--repo", "octo/widgets")).stdout).toContain("No memories for github.com/octo/widgets (repository id 1400000)");
    // Renamed to octo/gadgets, it keeps its id, and so its memory.
    await store.recordName("github.com", "octo/gadgets", 1296269);
    expect((await run("list", "--repo", "Octo/Gadgets")).stdout).toContain("old-repo");
    const unknown = await run("list", "--repo", "octo/never-seen");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("no job has run on github.com/octo/never-seen with memory on");
  });

  it("keys by GHE_HOST when set, and by --host over it", async () => {
    const { store, run } = await setUp({ GHE_HOST: "ghe.example.com" });
    await store.put("ghe.example.com/7", memory("on-ghe"));
    await store.put("other.example.com:8443/8", memory("on-other"));
    expect((await run("list", "--repo", "octo/widgets")).stdout).toContain("on-ghe");
    const other = await run("list", "--repo", "octo/widgets", "--host", "other.example.com:8443");
    expect(other.stdout).toContain("on-other");
    expect(other.stdout).not.toContain("on-ghe");
  });

  it("exits 2 with the usage for bad arguments", async () => {
    const { run } = await setUp();
    const cases: Array<[string[], string]> = [
      [["list", "--repo", "octo"], '--repo "octo" is not OWNER/NAME'],
      [["list", "--repo", "octo/widgets/extra"], "is not OWNER/NAME"],
      [["list", "--repo", "../widgets"], "is not an owner name"],
      [["list", "--repo", "octo/.."], "is not a repository name"],
      [["list", "--repo", "octo/widgets", "--host", "evil/../x"], "is not a host name"],
      [["list"], "--repo OWNER/NAME is required"],
      [["--repo", "octo/widgets"], "say list, show or delete"],
      [["purge", "--repo", "octo/widgets"], 'unknown action "purge"'],
      [["show", "--repo", "octo/widgets"], "show needs the memory's name"],
      [["list", "build", "--repo", "octo/widgets"], "list takes no memory name"],
      [["show", "a", "b", "--repo", "octo/widgets"], 'unexpected argument "b"'],
      [["show", "a", "--name", "b", "--repo", "octo/widgets"], "give the memory's name once"],
      [["list", "--repo", "octo/widgets", "--frob"], "--frob"],
      [["show", "Not Valid", "--repo", "octo/widgets"], "is not a memory name"],
    ];
    for (const [args, problem] of cases) {
      const result = await run(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(problem);
      expect(result.stdout).toBe("");
    }
    expect((await run("list", "--repo", "octo")).stderr).toContain("tackle memory list --repo OWNER/NAME");
  });

  it("exits 2 naming the variable when the environment is invalid", async () => {
    const { run } = await setUp({ REDIS_URL: "http://not-redis" });
    const result = await run("list", "--repo", "octo/widgets");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("REDIS_URL");
  });
});
