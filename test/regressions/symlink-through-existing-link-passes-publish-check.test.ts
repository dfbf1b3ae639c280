/**
 * Partial (red team of #20, fs surface, the publish check): a new symlink pointing at a protected path
 * or out of the repository is refused, judged from its target's text alone (`symlinkDestination`),
 * which treats every name in the target as a real directory. A name there may be a symlink the base
 * branch already holds, which the check never looks at: with `self -> .` in the base (a common
 * shape: `include/<lib> -> .`, a package linking to itself), `x -> self/.github/workflows` reads as
 * `self/.github/workflows`, matches no protected pattern and is published, though the kernel resolves
 * it to `.github/workflows`; with `up -> ..` in the base, `y -> up/outside` leaves the repository
 * and is published too. Impact is limited: GitHub reads workflows from the tree, not through links,
 * so this reaches what a link to a protected or outside path is refused for (a local hand-over's
 * repository, tools that follow the link) only where the base already holds such a link.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPublishedChange } from "../../src/agent/policy/index.js";
import { createHostGit } from "../../src/workspace/git-host.js";
import { createPublishRepo, type PublishRepo } from "../../src/workspace/publish-repo.js";
import { git, removeDir } from "../integration/workspace/helpers.js";

describe("a new symlink whose target goes through a symlink of the base branch", () => {
  let base: string;
  let work: string;
  let from: string;
  let publish: PublishRepo;

  beforeAll(async () => {
    base = mkdtempSync(path.join(tmpdir(), "tackle-symlink-chain-"));
    work = path.join(base, "work");
    await git(base, ["init", "--quiet", "-b", "main", work]);
    await git(work, ["config", "user.name", "Test"]);
    await git(work, ["config", "user.email", "test@example.com"]);
    await git(work, ["config", "core.symlinks", "true"]);
    // The base branch, as the maintainers made it.

    await execa("sh", ["-c", "mkdir -p .github/workflows && echo 'on: push' > .github/workflows/ci.yml && ln -s . self && ln -s .. up"], { cwd: work });
    await git(work, ["add", "-A"]);
    await git(work, ["commit", "--quiet", "-m", "base"]);
    from = await git(work, ["rev-parse", "HEAD"]);
    const hostGit = createHostGit({ gitHome: path.join(base, "git-home") });
    publish = await createPublishRepo(hostGit, path.join(base, "publish.git"), [path.join(work, ".git", "objects")], path.join(base, "template"));
  });

  afterAll(async () => {
    await publish?.dispose();
    removeDir(base);
  });

  const verdictOf = async (link: string, target: string) => {
    await execa("sh", ["-c", 'git checkout --quiet -f "$1" && ln -s "$3" "$2"', "sh", from, link, target], { cwd: work });
    await git(work, ["add", "-A"]);
    await git(work, ["commit", "--quiet", "-m", `add ${link}`]);
    const tip = await git(work, ["rev-parse", "HEAD"]);
    return checkPublishedChange({}, await publish.inspect(from, tip));
  };

  it("the direct forms are refused (as documented)", async () => {
    expect((await verdictOf("a", ".github/workflows")).action).toBe("refuse");
    expect((await verdictOf("b", "../outside")).action).toBe("refuse");
  });

  it("refuses a link that the base's `self -> .` makes point at .github/workflows", async () => {
    expect((await verdictOf("x", "self/.github/workflows")).action).toBe("refuse");
  });

  it("refuses a link that the base's `up -> ..` makes point out of the repository", async () => {
    expect((await verdictOf("y", "up/outside")).action).toBe("refuse");
  });
});
