/**
 * The symlinks the host lists for the publish check (src/workspace/published-symlinks.ts), from its own
 * repository: the start's and the base branch's trees as `ls-tree` lists them, the tip's and every new
 * commit's as the start's with their diff applied, and refusals where it will not resolve. Commits are
 * made with plumbing (an index of their own), so trees hold exactly what each case needs.
 */
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../../src/agent/policy/index.js";
import { MAX_TREE_SYMLINKS } from "../../../src/config/index.js";
import { isTackleError } from "../../../src/errors/index.js";
import { createHostGit } from "../../../src/workspace/git-host.js";
import { createPublishRepo, type PublishRepo } from "../../../src/workspace/publish-repo.js";
import { cleanGitEnv } from "../../fakes/clean-git-env.js";
import { git, removeDir, tempDir } from "./helpers.js";

/** A tree's entries: a file's content, or `{ link }` for a symlink. Paths may be bytes. */
type Entries = Array<[string | Buffer, string | { link: string | Buffer }]>;

describe("the symlinks the host lists for the publish check", () => {
  let base: string;
  let work: string;
  let publish: PublishRepo;
  let indexes = 0;

  const plumbing = async (args: string[], input?: string | Buffer, extra: Record<string, string> = {}) =>
    (await execa("git", args, { cwd: work, env: cleanGitEnv(base, extra), extendEnv: false, ...(input === undefined ? {} : { input }) })).stdout.trim();
  const blobs = new Map<string, string>();
  const blob = async (content: string | Buffer) => {
    const key = Buffer.from(content).toString("hex");
    const known = blobs.get(key);
    if (known !== undefined) return known;
    const sha = await plumbing(["hash-object", "-w", "--stdin"], Buffer.from(content));
    blobs.set(key, sha);
    return sha;
  };
  /** A commit of exactly `entries`, on `parents`. */
  const commit = async (entries: Entries, parents: string[] = []) => {
    const lines: Buffer[] = [];
    for (const [file, content] of entries) {
      const [mode, sha] = typeof content === "string" ? ["100644", await blob(content)] : ["120000", await blob(content.link)];
      lines.push(Buffer.concat([Buffer.from(`${mode} ${sha}\t`), Buffer.from(file), Buffer.from("\n")]));
    }
    indexes += 1;
    const index = { GIT_INDEX_FILE: path.join(base, `index-${indexes}`) };
    await plumbing(["update-index", "--add", "--index-info"], Buffer.concat(lines), index);
    const tree = await plumbing(["write-tree"], undefined, index);
    return plumbing(["commit-tree", tree, "-m", "commit", ...parents.flatMap((parent) => ["-p", parent])]);
  };
  const verdictOf = async (from: string, tip: string, base?: string) => checkPublishedChange({}, await publish.inspect(from, tip, base));

  const start: Entries = [
    [".github/workflows/ci.yml", "on: push\n"],
    ["README.md", "hello\n"],
    ["docs/v2/index.md", "v2\n"],
    ["docs/latest", { link: "v2" }],
    ["self", { link: "." }],
  ];
  let from: string;

  beforeAll(async () => {
    base = tempDir("publish-symlinks");
    work = path.join(base, "work.git");
    await git(base, ["init", "--quiet", "--bare", work]);
    await git(work, ["config", "user.name", "Test"]);
    await git(work, ["config", "user.email", "test@example.com"]);
    from = await commit(start);
    publish = await createPublishRepo(
      createHostGit({ gitHome: path.join(base, "git-home") }),
      path.join(base, "publish.git"),
      [path.join(work, "objects")],
      path.join(base, "template"),
    );
  });
  afterAll(async () => {
    await publish?.dispose();
    removeDir(base);
  });

  it("lists the tree's links when a commit changes one, and publishes ordinary links", async () => {
    const tip = await commit([...start, ["docs/next", { link: "v2/" }], ["docs/latest", { link: "next/index.md" }]], [from]);
    const change = await publish.inspect(from, tip);
    expect(change.symlinks?.from.get("self")).toBe(".");
    expect(change.symlinks?.tip.get("docs/latest")).toBe("next/index.md");
    expect(change.symlinks?.tip.get("docs/next")).toBe("v2/");
    expect(checkPublishedChange({}, change)).toEqual({ action: "publish" });
  });

  it("lists each new commit's tree whose links differ from the tip's, once", async () => {
    const first = await commit([...start, ["docs/a", { link: "v2" }]], [from]);
    const second = await commit([...start, ["docs/b", { link: "v2" }]], [first]);
    const again = await commit([...start, ["docs/a", { link: "v2" }]], [second]);
    const tip = await commit([...start, ["docs/b", { link: "v2" }], ["notes.md", "notes\n"]], [again]);
    const symlinks = (await publish.inspect(from, tip)).symlinks;
    // `second` has the tip's links; `again` has `first`'s.
    expect(symlinks?.commits).toHaveLength(1);
    expect(symlinks?.commits[0]?.get("docs/a")).toBe("v2");
    expect(symlinks?.commits[0]?.has("docs/b")).toBe(false);
    expect(symlinks?.commits[0]?.get("self")).toBe(".");
    expect(symlinks?.tip.has("docs/a")).toBe(false);
  });

  it("lists none when no commit adds, changes or removes a link", async () => {
    const tip = await commit([...start.filter(([file]) => file !== "README.md"), ["README.md", "changed\n"]], [from]);
    expect((await publish.inspect(from, tip)).symlinks).toBeNull();
  });

  it("judges a link in a commit's own tree, though a later commit removes it", async () => {
    const bad = await commit([...start, ["x", { link: "self/.github/workflows" }]], [from]);
    const tip = await commit([...start, ["notes.md", "notes\n"]], [bad]);
    const verdict = await verdictOf(from, tip);
    expect(verdict).toMatchObject({ action: "refuse" });
    expect(verdict.action === "refuse" && verdict.reason).toContain("the symlink x points at the protected path .github/workflows (through the symlink self)");
  });

  it("knows the base branch's links in a new commit's tree, as it knows its paths", async () => {
    // A pull request's head; the base branch gains `root -> .`; the job merges it, then removes the link.
    const head = await commit([...start, ["feature.md", "feature\n"]], [from]);
    const baseBranch = await commit([...start, ["root", { link: "." }]], [from]);
    const merge = await commit([...start, ["feature.md", "feature\n"], ["root", { link: "." }]], [head, baseBranch]);
    const tip = await commit([...start, ["feature.md", "feature\n"]], [merge]);
    expect(await verdictOf(head, tip, baseBranch)).toEqual({ action: "publish" });
    // Without the base branch known, the merge's `root -> .` is the job's own.
    expect(await verdictOf(head, tip)).toMatchObject({ action: "refuse", reason: expect.stringContaining("the symlink root points at the repository root") });
  });

  it("refuses a new link longer than a symlink can hold, and one whose name is not UTF-8", async () => {
    const long = await commit([...start, ["long", { link: `docs/${"a/".repeat(2100)}` }]], [from]);
    expect(await verdictOf(from, long)).toMatchObject({ action: "refuse", reason: expect.stringContaining("is over 4096 bytes") });
    const odd = await commit([...start, [Buffer.from([0x6c, 0xff]), { link: "docs" }]], [from]);
    const refused = await publish.inspect(from, odd).catch((error: unknown) => error);
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toContain("whose name is not UTF-8");
  });

  it(`refuses to resolve a tree of more than ${MAX_TREE_SYMLINKS} links, and only when a link changes`, async () => {
    const many: Entries = Array.from({ length: MAX_TREE_SYMLINKS + 1 }, (_, i) => [`links/${i}`, { link: "../docs" }]);
    const crowded = await commit([...start, ...many]);
    const fileChange = await commit([...start, ...many, ["notes.md", "notes\n"]], [crowded]);
    expect(await verdictOf(crowded, fileChange)).toEqual({ action: "publish" });
    const linkChange = await commit([...start, ...many, ["one-more", { link: "docs" }]], [crowded]);
    const refused = await publish.inspect(crowded, linkChange).catch((error: unknown) => error);
    expect(isTackleError(refused, "push_refused")).toBe(true);
    expect((refused as Error).message).toContain(`holds more than ${MAX_TREE_SYMLINKS} symlinks`);
  });
});
