/**
 * Repository routes answered from the bare git repo: metadata, collaborator permission,
 * contents, branches and git refs.
 */
import { branchSha, commitInfo, git, listBranches, lsTree, readBlob, refSha, resolveCommit, type TreeEntry } from "./fake-github-git.js";
import { githubError, notFound, paginate, validationFailed, type Route, type RouteContext, type World } from "./fake-github-http.js";
import { renderRepo, repoFor, requirePermission } from "./fake-github-render.js";
import { roleOf, type RepoRecord, type Role } from "./fake-github-state.js";
import { nodeId, userJson } from "./github-json.js";

/** The legacy `permission` field folds maintain into write and triage into read. */
const BASE_PERMISSION: Record<Role, string> = {
  admin: "admin",
  maintain: "write",
  write: "write",
  triage: "read",
  read: "read",
  none: "none",
};

const RANK: Role[] = ["none", "read", "triage", "write", "maintain", "admin"];

function permissionsHash(role: Role) {
  const at = (min: Role) => RANK.indexOf(role) >= RANK.indexOf(min);
  return { admin: at("admin"), maintain: at("maintain"), push: at("write"), triage: at("triage"), pull: at("read") };
}

function collaboratorPermission(ctx: RouteContext) {
  const repo = repoFor(ctx);
  const login = ctx.params.username ?? "";
  const user = ctx.world.state.users.get(login.toLowerCase());
  const role = roleOf(repo, login);
  if (!user && !role) throw notFound();
  // A known user without a grant can still read a public repository.
  const effective: Role = role ?? (repo.private ? "none" : "read");
  return {
    body: {
      permission: BASE_PERMISSION[effective],
      role_name: effective,
      user: { ...userJson(ctx.world.links, user?.login ?? login, user?.type), permissions: permissionsHash(effective), role_name: effective },
    },
  };
}

async function commitFor(ctx: RouteContext, repo: RepoRecord, ref: string): Promise<string> {
  const sha = await resolveCommit(ctx.world.git, repo.gitDir, ref);
  if (!sha) throw githubError(404, `No commit found for the ref ${ref}`);
  return sha;
}

function contentEntry(world: World, repo: RepoRecord, ref: string, entry: TreeEntry) {
  const repoApi = `${world.links.api}/repos/${repo.owner}/${repo.name}`;
  const type = entry.type === "tree" ? "dir" : entry.type === "commit" ? "submodule" : entry.mode === "120000" ? "symlink" : "file";
  const self = `${repoApi}/contents/${entry.path}?ref=${encodeURIComponent(ref)}`;
  const gitUrl = `${repoApi}/git/${entry.type === "tree" ? "trees" : "blobs"}/${entry.sha}`;
  const html = `${world.links.web}/${repo.owner}/${repo.name}/${type === "dir" ? "tree" : "blob"}/${ref}/${entry.path}`;
  return {
    name: entry.path.split("/").pop() ?? entry.path,
    path: entry.path,
    sha: entry.sha,
    size: entry.size ?? 0,
    url: self,
    html_url: html,
    git_url: gitUrl,
    download_url: type === "file" ? `${world.links.web}/${repo.owner}/${repo.name}/raw/${ref}/${entry.path}` : null,
    type,
    _links: { self, git: gitUrl, html },
  };
}

async function getContents(ctx: RouteContext) {
  const repo = repoFor(ctx);
  requirePermission(ctx, "contents", "read");
  const ref = ctx.query.get("ref") || repo.defaultBranch;
  const commit = await commitFor(ctx, repo, ref);
  const path = (ctx.params.path ?? "").replace(/^\/+|\/+$/g, "");
  const [entry] = path === "" ? [] : await lsTree(ctx.world.git, repo.gitDir, commit, path, false);
  if (path === "" || entry?.type === "tree") {
    const children = await lsTree(ctx.world.git, repo.gitDir, commit, path, true);
    return { body: children.map((child) => contentEntry(ctx.world, repo, ref, child)) };
  }
  if (!entry) throw notFound();
  const base = contentEntry(ctx.world, repo, ref, entry);
  if (entry.type !== "blob") return { body: base };
  const bytes = await readBlob(ctx.world.git, repo.gitDir, entry.sha);
  const accept = String(ctx.headers.accept ?? "");
  if (/\.raw\b|github\.raw/.test(accept)) {
    return { raw: bytes, headers: { "content-type": "application/vnd.github.raw; charset=utf-8" } };
  }
  if (base.type === "symlink") return { body: { ...base, target: bytes.toString() } };
  // GitHub wraps base64 content at 60 columns.
  const content = (bytes.toString("base64").match(/.{1,60}/g) ?? []).map((line) => `${line}\n`).join("");
  return { body: { ...base, encoding: "base64", content } };
}

async function branchJson(world: World, repo: RepoRecord, name: string, sha: string) {
  const repoApi = `${world.links.api}/repos/${repo.owner}/${repo.name}`;
  const info = await commitInfo(world.git, repo.gitDir, sha);
  const person = (p: typeof info.author) => ({ name: p.name, email: p.email, date: p.date });
  return {
    name,
    commit: {
      sha,
      node_id: nodeId("Commit", Number.parseInt(sha.slice(0, 8), 16)),
      commit: {
        author: person(info.author),
        committer: person(info.committer),
        message: info.message,
        tree: { sha: info.tree, url: `${repoApi}/git/trees/${info.tree}` },
        url: `${repoApi}/git/commits/${sha}`,
        comment_count: 0,
        verification: { verified: false, reason: "unsigned", signature: null, payload: null, verified_at: null },
      },
      url: `${repoApi}/commits/${sha}`,
      html_url: `${world.links.web}/${repo.owner}/${repo.name}/commit/${sha}`,
      comments_url: `${repoApi}/commits/${sha}/comments`,
      author: null,
      committer: null,
      parents: info.parents.map((p) => ({ sha: p, url: `${repoApi}/commits/${p}`, html_url: `${world.links.web}/${repo.owner}/${repo.name}/commit/${p}` })),
    },
    _links: { self: `${repoApi}/branches/${name}`, html: `${world.links.web}/${repo.owner}/${repo.name}/tree/${name}` },
    protected: false,
    protection: { enabled: false, required_status_checks: { enforcement_level: "off", contexts: [], checks: [] } },
    protection_url: `${repoApi}/branches/${name}/protection`,
  };
}

function refJson(world: World, repo: RepoRecord, ref: string, sha: string) {
  const repoApi = `${world.links.api}/repos/${repo.owner}/${repo.name}`;
  return {
    ref,
    node_id: nodeId("Ref", Number.parseInt(sha.slice(0, 8), 16)),
    url: `${repoApi}/git/${ref}`,
    object: { sha, type: "commit", url: `${repoApi}/git/commits/${sha}` },
  };
}

async function matchingRefs(ctx: RouteContext, repo: RepoRecord, prefix: string) {
  const out = await git(ctx.world.git, repo.gitDir, ["for-each-ref", "--format=%(refname) %(objectname)", "refs/"]);
  return out
    .split("\n")
    .filter(Boolean)
    .map((line) => line.split(" ") as [string, string])
    .filter(([name]) => name.startsWith(`refs/${prefix}`))
    .map(([name, sha]) => refJson(ctx.world, repo, name, sha));
}

export const repoRoutes: Route[] = [
  {
    method: "GET",
    path: "/repos/{owner}/{repo}",
    auth: "token",
    handler: (ctx) => ({ body: renderRepo(ctx.world, repoFor(ctx)) }),
  },
  { method: "GET", path: "/repos/{owner}/{repo}/collaborators/{username}/permission", auth: "token", handler: collaboratorPermission },
  { method: "GET", path: "/repos/{owner}/{repo}/contents", auth: "token", handler: getContents },
  { method: "GET", path: "/repos/{owner}/{repo}/contents/{+path}", auth: "token", handler: getContents },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/branches",
    auth: "token",
    handler: async (ctx) => {
      const repo = repoFor(ctx);
      const repoApi = `${ctx.world.links.api}/repos/${repo.owner}/${repo.name}`;
      const branches = (await listBranches(ctx.world.git, repo.gitDir)).map((b) => ({
        name: b.name,
        commit: { sha: b.sha, url: `${repoApi}/commits/${b.sha}` },
        protected: false,
      }));
      const page = paginate(branches, ctx);
      return { body: page.items, headers: page.headers };
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/branches/{+branch}",
    auth: "token",
    handler: async (ctx) => {
      const repo = repoFor(ctx);
      const name = ctx.params.branch ?? "";
      const sha = await branchSha(ctx.world.git, repo.gitDir, name);
      if (!sha) throw notFound("Branch not found");
      return { body: await branchJson(ctx.world, repo, name, sha) };
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/git/ref/{+ref}",
    auth: "token",
    handler: async (ctx) => {
      const repo = repoFor(ctx);
      const ref = `refs/${ctx.params.ref ?? ""}`;
      const sha = await refSha(ctx.world.git, repo.gitDir, ref);
      if (!sha) throw notFound();
      return { body: refJson(ctx.world, repo, ref, sha) };
    },
  },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/git/matching-refs/{+ref}",
    auth: "token",
    handler: async (ctx) => ({ body: await matchingRefs(ctx, repoFor(ctx), ctx.params.ref ?? "") }),
  },
  {
    method: "DELETE",
    path: "/repos/{owner}/{repo}/git/refs/{+ref}",
    auth: "token",
    handler: async (ctx) => {
      const repo = repoFor(ctx);
      requirePermission(ctx, "contents", "write");
      const ref = `refs/${ctx.params.ref ?? ""}`;
      const sha = await refSha(ctx.world.git, repo.gitDir, ref);
      if (!sha) throw githubError(422, "Reference does not exist");
      if (ref === `refs/heads/${repo.defaultBranch}`)
        throw validationFailed([{ resource: "Reference", code: "custom", message: "Cannot delete the default branch" }]);
      await git(ctx.world.git, repo.gitDir, ["update-ref", "-d", ref, sha]);
      return { status: 204 };
    },
  },
];
