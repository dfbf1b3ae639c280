/**
 * App-level routes: the App itself, its installations, installation tokens, and the few
 * account endpoints (user, rate limit) clients probe.
 */
import { randomBytes } from "node:crypto";
import { bodyObject, githubError, notFound, tokenOf, type Route, type RouteContext, type World } from "./fake-github-http.js";
import { appJson, renderRepo, tokenCanSee } from "./fake-github-render.js";
import { findRepo, type InstallationRecord, type PermissionLevel, type TokenPermissions, type TokenRecord } from "./fake-github-state.js";
import { installationJson, isoTime, repoId, userJson } from "./github-json.js";

const TOKEN_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** `ghs_` + 36 alphanumerics, the shape of a real installation token. */
export function newInstallationToken(): string {
  const bytes = randomBytes(36);
  return `ghs_${[...bytes].map((b) => TOKEN_ALPHABET[b % TOKEN_ALPHABET.length]).join("")}`;
}

export function renderInstallation(world: World, installation: InstallationRecord) {
  return installationJson(world.links, {
    ...installation,
    appId: world.app.id,
    appSlug: world.app.slug,
    permissions: world.app.permissions,
    events: world.app.events,
  });
}

function installationFor(ctx: RouteContext): InstallationRecord {
  const installation = ctx.world.state.installations.get(Number(ctx.params.installation_id));
  if (!installation) throw notFound();
  return installation;
}

function installationOfAccount(ctx: RouteContext, account: string) {
  const installation = [...ctx.world.state.installations.values()].find((i) => i.account.toLowerCase() === account.toLowerCase());
  if (!installation) throw notFound();
  return { body: renderInstallation(ctx.world, installation) };
}

/** Narrows the App's permissions to what the caller asked for; asking for more is GitHub's 422. */
function grantedPermissions(world: World, requested: unknown): TokenPermissions {
  if (requested === undefined) return { ...world.app.permissions };
  const granted: TokenPermissions = {};
  for (const [scope, level] of Object.entries(requested as Record<string, unknown>)) {
    const held = world.app.permissions[scope];
    if (!held || (level === "write" && held !== "write") || (level !== "read" && level !== "write")) {
      throw githubError(422, "The permissions requested are not granted to this installation.");
    }
    granted[scope] = level as PermissionLevel;
  }
  return granted;
}

function createAccessToken(ctx: RouteContext) {
  const { world } = ctx;
  const installation = installationFor(ctx);
  const body = bodyObject(ctx);
  const repoNames = Array.isArray(body.repositories) ? body.repositories.map((name) => String(name).toLowerCase()) : undefined;
  const repoIds = Array.isArray(body.repository_ids) ? body.repository_ids.map(Number) : undefined;
  const installed = [...world.state.repos.values()].filter((r) => r.installationId === installation.id);
  let selected: typeof installed | undefined;
  if (repoNames || repoIds) {
    selected = installed.filter((r) => repoNames?.includes(r.name.toLowerCase()) || repoIds?.includes(repoId(r.owner, r.name)));
    if (selected.length !== (repoNames?.length ?? 0) + (repoIds?.length ?? 0)) {
      throw githubError(422, "There is at least one repository that does not exist or is not accessible to the parent installation.");
    }
  }
  const record: TokenRecord = {
    token: newInstallationToken(),
    kind: "installation",
    installationId: installation.id,
    login: `${world.app.slug}[bot]`,
    expiresAt: Date.now() + world.tokenTtlMs,
    revoked: false,
    permissions: grantedPermissions(world, body.permissions),
    ...(selected ? { repositories: selected.map((r) => r.name.toLowerCase()) } : {}),
    createdAt: Date.now(),
  };
  world.state.tokens.set(record.token, record);
  return {
    status: 201,
    body: {
      token: record.token,
      expires_at: isoTime(record.expiresAt),
      permissions: record.permissions,
      repository_selection: selected ? "selected" : "all",
      ...(selected ? { repositories: selected.map((r) => renderRepo(world, r)) } : {}),
    },
  };
}

export const appRoutes: Route[] = [
  { method: "GET", path: "/app", auth: "jwt", handler: (ctx) => ({ body: appJson(ctx.world) }) },
  {
    method: "GET",
    path: "/app/installations",
    auth: "jwt",
    handler: (ctx) => ({ body: [...ctx.world.state.installations.values()].map((i) => renderInstallation(ctx.world, i)) }),
  },
  {
    method: "GET",
    path: "/app/installations/{installation_id}",
    auth: "jwt",
    handler: (ctx) => ({ body: renderInstallation(ctx.world, installationFor(ctx)) }),
  },
  { method: "POST", path: "/app/installations/{installation_id}/access_tokens", auth: "jwt", handler: createAccessToken },
  {
    method: "GET",
    path: "/repos/{owner}/{repo}/installation",
    auth: "jwt",
    handler: (ctx) => {
      const repo = findRepo(ctx.world.state, ctx.params.owner ?? "", ctx.params.repo ?? "");
      const installation = repo && ctx.world.state.installations.get(repo.installationId);
      if (!installation) throw notFound();
      return { body: renderInstallation(ctx.world, installation) };
    },
  },
  { method: "GET", path: "/orgs/{org}/installation", auth: "jwt", handler: (ctx) => installationOfAccount(ctx, ctx.params.org ?? "") },
  { method: "GET", path: "/users/{username}/installation", auth: "jwt", handler: (ctx) => installationOfAccount(ctx, ctx.params.username ?? "") },
  {
    method: "DELETE",
    path: "/installation/token",
    auth: "token",
    handler: (ctx) => {
      tokenOf(ctx).revoked = true;
      return { status: 204 };
    },
  },
  {
    method: "GET",
    path: "/installation/repositories",
    auth: "token",
    handler: (ctx) => {
      const token = tokenOf(ctx);
      if (token.kind !== "installation") throw githubError(403, "Resource not accessible by personal access token");
      const repos = [...ctx.world.state.repos.values()].filter((r) => tokenCanSee(token, ctx.world, r));
      return {
        body: {
          total_count: repos.length,
          repository_selection: token.repositories ? "selected" : "all",
          repositories: repos.map((r) => renderRepo(ctx.world, r)),
        },
      };
    },
  },
  {
    method: "GET",
    path: "/user",
    auth: "token",
    handler: (ctx) => {
      const token = tokenOf(ctx);
      if (token.kind === "installation") throw githubError(403, "Resource not accessible by integration");
      return { body: userJson(ctx.world.links, token.login) };
    },
  },
  {
    method: "GET",
    path: "/users/{username}",
    auth: "token",
    handler: (ctx) => {
      const user = ctx.world.state.users.get((ctx.params.username ?? "").toLowerCase());
      if (!user) throw notFound();
      return { body: userJson(ctx.world.links, user.login, user.type) };
    },
  },
  {
    method: "GET",
    path: "/rate_limit",
    auth: "token",
    handler: () => {
      const core = { limit: 5000, used: 0, remaining: 5000, reset: Math.floor(Date.now() / 1000) + 3600 };
      return { body: { resources: { core, graphql: core, search: { ...core, limit: 30, remaining: 30 } }, rate: core } };
    },
  },
];
