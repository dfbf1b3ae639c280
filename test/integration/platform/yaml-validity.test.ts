// The YAML that GitHub reads, checked with tools written by others: `@action-validator/cli` (the
// SchemaStore schemas for actions and workflows) for action.yml, every workflow in .github/workflows,
// and every workflow the README tells users to copy; the `yaml` package in strict mode for app.yml
// and, as the runner's parser would, for all of them. Then what each file must hold for Tackle.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, parseDocument } from "yaml";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../../..");
const VALIDATOR = path.join(ROOT, "node_modules/.bin/action-validator");

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), "tackle-yaml-"));
});
afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Validation {
  code: number;
  /** The validator's JSON report (printed only when there are errors). */
  errors: Array<{ code: string; path?: string; title: string; detail?: string; states?: Array<{ errors: unknown[] }> }>;
  output: string;
}

/** `action-validator FILE`, from the repository root (it checks `paths:` globs against the files there). */
async function validate(file: string): Promise<Validation> {
  try {
    const { stdout, stderr } = await run(VALIDATOR, [file], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, errors: [], output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    const output = `${e.stdout ?? ""}${e.stderr ?? ""}`;
    const start = output.indexOf("{");
    const report = start >= 0 ? (JSON.parse(output.slice(start)) as { errors?: Validation["errors"] }) : {};
    return { code: typeof e.code === "number" ? e.code : -1, errors: report.errors ?? [], output };
  }
}

/** Strict YAML 1.2, duplicate keys refused: any error or warning fails. */
async function parseStrict(file: string): Promise<Record<string, unknown>> {
  const text = await readFile(path.resolve(ROOT, file), "utf8");
  const doc = parseDocument(text, { strict: true, uniqueKeys: true, prettyErrors: true });
  expect(
    [...doc.errors, ...doc.warnings].map((e) => e.message),
    file,
  ).toEqual([]);
  return doc.toJS() as Record<string, unknown>;
}

/** The workflow blocks of the README (```yaml fences holding `jobs:`), as users copy them. */
async function readmeWorkflows(): Promise<string[]> {
  const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
  return [...readme.matchAll(/```ya?ml\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((block) => /^jobs:/m.test(block));
}

async function workflowFiles(): Promise<string[]> {
  const dir = path.join(ROOT, ".github/workflows");
  return (await readdir(dir)).filter((name) => /\.ya?ml$/.test(name)).map((name) => `.github/workflows/${name}`);
}

describe("action.yml", () => {
  it("passes @action-validator/cli, but for runs.using: node24, which its schema does not know yet", async () => {
    // @action-validator 0.6.0's action schema allows node12, node16 and node20 only. GitHub runs
    // node24 actions (and moves node20 ones to it), so the real file fails on exactly that field:
    const real = await validate("action.yml");
    expect(real.code, real.output).toBe(1);
    expect(real.errors).toHaveLength(1);
    expect(real.errors[0]).toMatchObject({ code: "one_of", path: "/runs" });
    const javascriptRuns = real.errors[0]!.states?.[0]?.errors;
    expect(javascriptRuns, real.output).toEqual([{ code: "enum", path: "/runs/using", title: "Enum conditions are not met" }]);
    // …and the same file with node20 in that one place passes everything else: branding, inputs, outputs, runs.
    const text = await readFile(path.join(ROOT, "action.yml"), "utf8");
    expect(text.match(/^ {2}using: node24$/gm)).toHaveLength(1);
    const lagFree = path.join(scratch, "action.yml");
    await writeFile(lagFree, text.replace(/^ {2}using: node24$/m, "  using: node20"));
    const rest = await validate(lagFree);
    expect(rest.code, rest.output).toBe(0);
  });

  it("runs.using is a runtime GitHub runs, and runs.main is the committed bundle", async () => {
    const action = await parseStrict("action.yml");
    const runs = action.runs as { using: string; main: string };
    // The Node runtimes GitHub's runner accepts for JavaScript actions today; node24 is the current one.
    expect(runs.using).toBe("node24");
    expect(runs.main).toBe("dist/action.js");
    const { stdout } = await run("git", ["ls-files", "--error-unmatch", runs.main], { cwd: ROOT });
    expect(stdout.trim()).toBe(runs.main);
  });

  it("declares the contract's inputs and outputs, with branding from GitHub's Feather icon list", async () => {
    const action = await parseStrict("action.yml");
    const inputs = action.inputs as Record<string, { required?: boolean; default?: string; description: string }>;
    expect(Object.keys(inputs).sort()).toEqual(["allow_unsandboxed", "anthropic_api_key", "github_token", "model"]);
    expect(inputs.github_token).toMatchObject({ required: false, default: "${{ github.token }}" });
    expect(inputs.allow_unsandboxed).toMatchObject({ required: false, default: "false" });
    expect(Object.keys(action.outputs as object).sort()).toEqual(["pull_request_url", "status"]);
    // The validator checks the icon against the list (see above: the lag-free copy passes); `tool`,
    // which the file once had, is not in it.
    expect((action.branding as { icon: string }).icon).not.toBe("tool");
    // The Marketplace's release form refuses a description of 125 characters or more; the validator does not check it.
    expect((action.description as string).length).toBeLessThan(125);
  });

  it("the validator is a real check: a wrong icon and a missing description fail it", async () => {
    const text = await readFile(path.join(ROOT, "action.yml"), "utf8");
    const broken = path.join(scratch, "broken-action.yml");
    await writeFile(
      broken,
      text
        .replace(/^ {2}using: node24$/m, "  using: node20")
        .replace(/^ {2}icon: .*$/m, "  icon: tool")
        .replace(/^description: .*$/m, ""),
    );
    const result = await validate(broken);
    expect(result.code).toBe(1);
    expect(result.errors.map((e) => e.path ?? e.code)).toEqual(expect.arrayContaining(["/branding/icon"]));
    expect(result.output).toContain("description");
  });
});

describe("workflows", () => {
  it("every file in .github/workflows passes @action-validator/cli and parses strictly", async () => {
    const files = await workflowFiles();
    expect(files).toEqual(expect.arrayContaining([".github/workflows/ci.yml", ".github/workflows/release.yml"]));
    for (const file of files) {
      const result = await validate(file);
      expect(result.code, `${file}: ${result.output}`).toBe(0);
      await parseStrict(file);
    }
  });

  it("every workflow in the README passes @action-validator/cli", async () => {
    const blocks = await readmeWorkflows();
    expect(blocks.length).toBeGreaterThan(0);
    for (const [i, block] of blocks.entries()) {
      const file = path.join(scratch, `readme-workflow-${i}.yml`);
      await writeFile(file, block);
      const result = await validate(file);
      expect(result.code, `README workflow ${i}: ${result.output}\n${block}`).toBe(0);
    }
  });

  it("the README's Action workflow listens to every event the App does, one run per issue at a time, bounded, with the permissions Tackle needs", async () => {
    const [block] = (await readmeWorkflows()).filter((b) => /uses: \S+\/tackle@/.test(b));
    expect(block).toBeDefined();
    const workflow = parseYaml(block!) as {
      on: Record<string, { types: string[] }>;
      permissions: Record<string, string>;
      jobs: Record<
        string,
        { if?: string; concurrency: { group: string; "cancel-in-progress": boolean }; "timeout-minutes": number; steps: Array<{ uses?: string }> }
      >;
    };
    // The App's events (app.yml) are the Action's; `issues.assigned` cannot fire for github-actions[bot].
    const app = await parseStrict("app.yml");
    expect(Object.keys(workflow.on).sort()).toEqual([...(app.default_events as string[])].sort());
    expect(workflow.on).toEqual({
      issues: { types: ["labeled"] },
      issue_comment: { types: ["created"] },
      pull_request_review: { types: ["submitted"] },
      pull_request_review_comment: { types: ["created"] },
    });
    expect(workflow.permissions).toEqual({ contents: "write", issues: "write", "pull-requests": "write" });
    const jobs = Object.values(workflow.jobs);
    expect(jobs).toHaveLength(1);
    const job = jobs[0]!;
    expect(job.concurrency).toEqual({ group: "tackle-${{ github.event.issue.number || github.event.pull_request.number }}", "cancel-in-progress": false });
    expect(job["timeout-minutes"]).toBeGreaterThan(30);
    expect(job.steps.map((s) => s.uses).filter(Boolean)).toEqual(["<owner>/tackle@v1"]);
    // The first filter lets each trigger kind through.
    for (const phrase of [
      "github.event.label.name == 'tackle'",
      "contains(github.event.comment.body, '@tackle')",
      // A command may stand on any line of a comment or a review, not only the first.
      "contains(github.event.comment.body, '/tackle')",
      "contains(github.event.review.body, '@tackle')",
      "contains(github.event.review.body, '/tackle')",
    ]) {
      expect(job.if).toContain(phrase);
    }
  });
});

describe("app.yml", () => {
  it("parses strictly and holds exactly the contract's permissions and events", async () => {
    const app = await parseStrict("app.yml");
    expect(app.default_permissions).toEqual({ contents: "write", issues: "write", pull_requests: "write", metadata: "read" });
    expect(app.default_permissions).not.toHaveProperty("workflows");
    expect(app.default_events).toEqual(["issues", "issue_comment", "pull_request_review", "pull_request_review_comment"]);
  });
});

describe("release workflow", () => {
  const git = (cwd: string, ...args: string[]) =>
    run("git", args, {
      cwd,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: scratch,
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_AUTHOR_NAME: "t",
        GIT_AUTHOR_EMAIL: "t@example.com",
        GIT_COMMITTER_NAME: "t",
        GIT_COMMITTER_EMAIL: "t@example.com",
      },
    });

  async function moveStep(): Promise<{ run: string; env: Record<string, string> }> {
    const workflow = (await parseStrict(".github/workflows/release.yml")) as {
      jobs: Record<string, { steps: Array<{ name?: string; run?: string; env?: Record<string, string> }> }>;
    };
    const step = Object.values(workflow.jobs)
      .flatMap((job) => job.steps)
      .find((s) => s.name === "move the major tag");
    expect(step?.run).toBeDefined();
    return { run: step!.run!, env: step!.env ?? {} };
  }

  it("runs on published releases only, skips pre-releases, may push tags, and checks the bundle first", async () => {
    const workflow = (await parseStrict(".github/workflows/release.yml")) as {
      on: Record<string, unknown>;
      permissions: Record<string, string>;
      jobs: Record<string, { if?: string; steps: Array<{ name?: string }> }>;
    };
    expect(workflow.on).toEqual({ release: { types: ["published"] } });
    expect(workflow.permissions).toEqual({ contents: "write" });
    const job = Object.values(workflow.jobs)[0]!;
    expect(job.if).toContain("!github.event.release.prerelease");
    const names = job.steps.map((s) => s.name);
    expect(names.indexOf("check dist/action.js is what the sources build")).toBeGreaterThanOrEqual(0);
    expect(names.indexOf("check dist/action.js is what the sources build")).toBeLessThan(names.indexOf("move the major tag"));
  });

  it("its script moves v1 to the released commit on the remote, and refuses a tag that is not vX.Y.Z", async () => {
    const step = await moveStep();
    expect(step.env).toEqual({ TAG: "${{ github.event.release.tag_name }}" });
    const origin = path.join(scratch, "origin.git");
    const work = path.join(scratch, "work");
    await git(scratch, "init", "--bare", "-b", "main", origin);
    await git(scratch, "clone", origin, work);
    await git(work, "commit", "--allow-empty", "-m", "one");
    await git(work, "tag", "v1.0.0");
    await git(work, "tag", "v1");
    await git(work, "push", "origin", "main", "v1.0.0", "v1");
    await git(work, "commit", "--allow-empty", "-m", "two");
    await git(work, "tag", "v1.1.0");
    await git(work, "push", "origin", "main", "v1.1.0");
    const released = (await git(work, "rev-parse", "v1.1.0^{commit}")).stdout.trim();
    const script = path.join(scratch, "move-major-tag.sh");
    await writeFile(script, step.run);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, GIT_CONFIG_NOSYSTEM: "1" };

    const moved = await run("bash", [script], { cwd: work, env: { ...env, TAG: "v1.1.0" } });
    expect(moved.stdout).toContain(`moved v1 to v1.1.0 (${released})`);
    expect((await git(origin, "rev-parse", "refs/tags/v1^{commit}")).stdout.trim()).toBe(released);

    const refused = await run("bash", [script], { cwd: work, env: { ...env, TAG: "v1.2" } }).then(
      () => ({ code: 0, stdout: "" }),
      (error: { code: number; stdout: string }) => error,
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("::error::the release tag 'v1.2' is not vMAJOR.MINOR.PATCH");
    expect((await git(origin, "rev-parse", "refs/tags/v1^{commit}")).stdout.trim()).toBe(released);
  });
});
