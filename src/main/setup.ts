import { randomBytes } from "node:crypto";
import { equalSecrets } from "../util/equal-secrets.js";
import { existsSync } from "node:fs";
import { type FileHandle, lstat, open, readFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { buildAppManifest, DEFAULT_WEBHOOK_PATH, formatDotEnv, loadEnv, type AppManifest, type TackleEnv } from "../config/index.js";
import { errorMessage } from "../errors/index.js";
import { convertAppManifest, type RegisteredApp } from "../github/index.js";
import { escapeHtml } from "../util/escape-html.js";

export interface SetupOptions {
  /** Where `.env` is written (and must not exist yet): the directory `tackle server` runs in. */
  dir: string;
  /** The local page's port on 127.0.0.1. @defaultValue 0: a free one */
  port?: number;
  /** Register the App for this organization instead of the signed-in user. */
  org?: string;
  /** The App's name, instead of app.yml's (names are unique on a GitHub server). */
  name?: string;
  /** The manifest. @defaultValue the app.yml shipped with Tackle */
  manifestPath?: string;
  /** Where progress lines go. @defaultValue console.log */
  print?: (line: string) => void;
}

/**
 * `tackle setup`: registers the GitHub App through GitHub's manifest flow. A page on 127.0.0.1 posts
 * the manifest (app.yml, with the webhook URL from WEBHOOK_PROXY_URL or TACKLE_PUBLIC_URL) to GitHub's
 * "new App" page; GitHub sends the browser back with a one-time code, which is traded for the App's
 * id, key and webhook secret, written to `.env` with mode 0600. An existing `.env` is never
 * overwritten. The page answers only as `127.0.0.1:<port>`, and only a browser that opened the
 * address printed in the terminal (with its key; never a cookie) sees the state or completes the
 * callback. Returns the exit code.
 */
export async function setup(processEnv: NodeJS.ProcessEnv, options: SetupOptions): Promise<number> {
  const print = options.print ?? ((line: string) => console.log(line));
  const env = loadEnv(processEnv, { mode: "setup" });
  const envPath = path.join(path.resolve(options.dir), ".env");
  if (await exists(envPath)) {
    console.error(`tackle setup: ${envPath} already exists, and setup never overwrites it. Move it away, or run setup in another directory.`);
    return 1;
  }
  const hook = webhookUrl(env);
  if (!hook) {
    console.error(
      "tackle setup: GitHub needs to know where to send webhooks: set TACKLE_PUBLIC_URL (the server's public URL; " +
        `webhooks go to ${DEFAULT_WEBHOOK_PATH} under it) or WEBHOOK_PROXY_URL (a https://smee.io channel, for development)`,
    );
    return 2;
  }
  if (options.org !== undefined && !/^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(options.org)) {
    console.error(`tackle setup: --org ${JSON.stringify(options.org)} is not an organization name`);
    return 2;
  }
  const manifestPath = options.manifestPath ?? packageFile("app.yml");
  const manifestText = await readFile(manifestPath, "utf8");

  const state = randomBytes(16).toString("hex");
  const owner = options.org === undefined ? "" : `/organizations/${options.org}`;
  const createUrl = `${env.githubServerUrl}${owner}/settings/apps/new?state=${state}`;
  let manifest: AppManifest | undefined;
  let finish: (result: { app: RegisteredApp; written: string[] } | Error) => void = () => undefined;
  const finished = new Promise<{ app: RegisteredApp; written: string[] } | Error>((resolve) => (finish = resolve));
  let settled = false;
  // The page holding the state is served only with the key printed in the terminal: neither a
  // DNS-rebinding page (refused by its Host) nor another user of the machine sees the state, and the
  // callback needs it. No cookie: a browser sends 127.0.0.1's cookies to every port, so another local
  // user's server on another port would receive one.
  const key = randomBytes(16).toString("hex");

  const server = http.createServer((req, res) => {
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (refuseForeignHost(req, res, origin)) return;
    const url = new URL(req.url ?? "/", origin);
    if (req.method === "GET" && url.pathname === "/" && manifest) {
      if (equalSecrets(url.searchParams.get("key") ?? "", key)) sendHtml(res, 200, registerPage(manifest, createUrl, env.githubServerUrl, options.org));
      else sendHtml(res, 403, page("Open the address from the terminal", NOT_THIS_BROWSER));
      return;
    }
    if (req.method !== "GET" || url.pathname !== "/callback") {
      sendHtml(res, 404, page("Not found", '<p>This page only serves <a href="/">/</a>.</p>'));
      return;
    }
    if (settled) {
      sendHtml(res, 410, page("Already done", "<p>This setup has already ended; see the terminal.</p>"));
      return;
    }
    const code = url.searchParams.get("code");
    if (url.searchParams.get("state") !== state || !code) {
      sendHtml(
        res,
        400,
        page("Not this setup", '<p>This request did not come from this setup\'s page (its state does not match). Start again from <a href="/">/</a>.</p>'),
      );
      return;
    }
    settled = true;
    void complete(code).then(
      (result) => {
        res.writeHead(302, { location: `${result.app.htmlUrl}/installations/new`, "content-type": "text/html; charset=utf-8", ...PAGE_HEADERS });
        res.end(page("Registered", `<p>Registered. <a href="${escapeHtml(result.app.htmlUrl)}/installations/new">Install the App</a>.</p>`));
        finish(result);
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        sendHtml(res, 502, page("Registration not finished", `<p>${escapeHtml(failure.message)}</p>`));
        finish(failure);
      },
    );
  });

  const complete = async (code: string): Promise<{ app: RegisteredApp; written: string[] }> => {
    const app = await convertAppManifest({ apiUrl: env.githubApiUrl, code });
    const vars = dotEnvVars(env, app);
    await writeNewFile(envPath, header(app) + formatDotEnv(vars));
    return { app, written: Object.keys(vars) };
  };

  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "it is already in use" : error.message;
      reject(new Error(`tackle setup: cannot serve the setup page on 127.0.0.1:${options.port ?? 0}: ${why}`, { cause: error }));
    });
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    manifest = buildAppManifest(manifestText, {
      source: manifestPath,
      webhookUrl: hook,
      redirectUrl: `${local}/callback`,
      ...(options.name === undefined ? {} : { name: options.name }),
    });
    print(`tackle setup: open ${local}/?key=${key} in a browser signed in to ${env.githubServerUrl} to register the App "${manifest.name}"`);
    print(`  webhooks will go to ${hook}; the credentials will be written to ${envPath}`);
    const result = await finished;
    if (result instanceof Error) {
      console.error(`tackle setup: ${result.message}`);
      return 1;
    }
    const { app, written } = result;
    print(`Registered the GitHub App "${app.name}" (id ${app.id}): ${app.htmlUrl}`);
    print(`Wrote ${envPath} (mode 0600): ${written.join(", ")}`);
    if (!app.webhookSecret) print("GitHub returned no webhook secret: set one in the App's settings and add WEBHOOK_SECRET to .env.");
    print(`Next: install the App (${app.htmlUrl}/installations/new), add ANTHROPIC_API_KEY, and run \`tackle server\` in ${path.dirname(envPath)}.`);
    return 0;
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The webhook URL GitHub is told: the proxy channel when one is set (as the server will listen there), else the public URL's path. */
function webhookUrl(env: TackleEnv<"setup">): string | null {
  if (env.webhookProxyUrl) return env.webhookProxyUrl;
  if (env.publicUrl) return `${env.publicUrl}${env.webhookPath}`;
  return null;
}

/** What `tackle server` needs from this registration to start in the same directory. */
function dotEnvVars(env: TackleEnv<"setup">, app: RegisteredApp): Record<string, string> {
  return {
    APP_ID: String(app.id),
    PRIVATE_KEY: app.pem,
    ...(app.webhookSecret ? { WEBHOOK_SECRET: app.webhookSecret } : {}),
    ...(env.ghe ? { GHE_HOST: env.ghe.host, GHE_PROTOCOL: env.ghe.protocol } : {}),
    ...(env.webhookProxyUrl ? { WEBHOOK_PROXY_URL: env.webhookProxyUrl } : {}),
    ...(env.webhookPath === DEFAULT_WEBHOOK_PATH ? {} : { WEBHOOK_PATH: env.webhookPath }),
  };
}

function header(app: RegisteredApp): string {
  return [
    `# The GitHub App "${app.name}" (${app.htmlUrl}), registered by \`tackle setup\` on ${new Date().toISOString()}.`,
    "# Secret: it holds the App's private key and webhook secret. `tackle server` and `tackle worker` read it.",
    "",
  ].join("\n");
}

/** Creates the file with mode 0600, failing if it exists (a `.env` that appeared meanwhile is kept). */
async function writeNewFile(file: string, text: string): Promise<void> {
  let handle: FileHandle;
  try {
    handle = await open(file, "wx", 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Error(
        `${file} appeared while the App was being registered; it was not overwritten. The App is registered, but its key is not saved: generate a new private key in the App's settings.`,
      );
    }
    throw new Error(
      `cannot write ${file}: ${errorMessage(error)}. The App is registered, but its key is not saved: generate a new private key in the App's settings.`,
    );
  }
  try {
    // The umask may have taken bits away, never added any; set exactly 0600 anyway.
    await handle.chmod(0o600);
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** A file shipped in Tackle's package (beside package.json), from the source tree or the bundle in dist/. */
function packageFile(name: string): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(dir, name);
    if (existsSync(path.join(dir, "package.json")) && existsSync(candidate)) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find Tackle's ${name}; give one with --manifest FILE`);
    dir = parent;
  }
}

function registerPage(manifest: AppManifest, createUrl: string, server: string, org: string | undefined): string {
  const who = org === undefined ? "your account" : `the organization ${org}`;
  return page(
    `Register ${manifest.name}`,
    [
      `<p>This registers the GitHub App <b>${escapeHtml(manifest.name)}</b> on ${escapeHtml(server)}, owned by ${escapeHtml(who)}.`,
      `Webhooks go to <code>${escapeHtml(manifest.hook_attributes.url)}</code>.</p>`,
      `<form method="post" action="${escapeHtml(createUrl)}">`,
      `<input type="hidden" name="manifest" value="${escapeHtml(JSON.stringify(manifest))}">`,
      `<button type="submit">Register on ${escapeHtml(new URL(server).host)}</button>`,
      "</form>",
      `<details><summary>The manifest</summary><pre>${escapeHtml(JSON.stringify(manifest, null, 2))}</pre></details>`,
    ].join("\n"),
  );
}

function page(title: string, body: string): string {
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(title)} · tackle setup</title></head>\n<body>\n<h1>${escapeHtml(title)}</h1>\n${body}\n</body></html>\n`;
}

/** Never cached, never framed, and no Referer (the callback's URL holds the one-time code). */
const PAGE_HEADERS = { "cache-control": "no-store", "x-frame-options": "DENY", "referrer-policy": "no-referrer" };

const NOT_THIS_BROWSER =
  "<p>This is not the address <code>tackle setup</code> printed in its terminal (with <code>?key=</code>). Open that address, in the browser you use on GitHub.</p>";

function sendHtml(res: http.ServerResponse, status: number, html: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", ...PAGE_HEADERS, ...headers }).end(html);
}

/**
 * Answers a request that does not name this server as `127.0.0.1:<port>` and returns true. A
 * DNS-rebinding page reaches the server under its own name: it gets neither the state nor the
 * callback. `localhost` is sent to 127.0.0.1, the one origin GitHub sends the browser back to.
 */
function refuseForeignHost(req: http.IncomingMessage, res: http.ServerResponse, origin: string): boolean {
  const host = req.headers.host ?? "";
  const own = new URL(origin).host;
  if (host === own) return false;
  if (host === own.replace("127.0.0.1", "localhost")) res.writeHead(302, { location: `${origin}${req.url ?? "/"}`, ...PAGE_HEADERS }).end();
  else sendHtml(res, 421, page("Wrong address", `<p>This setup page answers only at <a href="${origin}/">${origin}/</a>.</p>`));
  return true;
}
