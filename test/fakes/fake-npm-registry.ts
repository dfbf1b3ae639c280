/**
 * A fake npm registry on 127.0.0.1 serving the packages this repository has installed, so a test can
 * `npm install` the packed Tackle tarball the way a user does, with npm resolving and fetching its
 * dependencies over HTTP, and never touch the internet.
 *
 * It speaks the registry's read API as npm uses it: `GET /<name>` (a scoped name as `@scope%2fname`)
 * answers the packument (`name`, `dist-tags`, `versions` with each version's manifest and
 * `dist.tarball`, `dist.integrity`, `dist.shasum`), and the tarball URLs it names answer the tarball.
 * What it knows comes from the repository's package-lock.json; a package installed in node_modules is
 * packed from there with `npm pack` when its packument is first asked for. A package the lock lists but
 * this machine did not install (another platform's optional binary) is described with the lock's `os`,
 * `cpu` and integrity, and has no tarball: npm skips it on this platform, as it does against the real
 * registry. Anything else is a 404 with the registry's body.
 */
import { execFile } from "node:child_process";
import { access, readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface FakeNpmRegistryOptions {
  /** A directory holding package-lock.json and the node_modules it describes (the repository root). */
  root: string;
  /** Where packed tarballs are written. */
  workDir: string;
}

export interface FakeNpmRegistry {
  url: string;
  /** Every request as `METHOD path status`, in order. */
  requests: string[];
  close(): Promise<void>;
}

interface LockEntry {
  version?: string;
  integrity?: string;
  link?: boolean;
  name?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, unknown>;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  engines?: Record<string, string>;
  bin?: Record<string, string>;
  license?: string;
  hasInstallScript?: boolean;
}

/** Manifest fields npm reads from a packument's version entry when it resolves a tree. */
const MANIFEST_FIELDS = [
  "dependencies",
  "optionalDependencies",
  "peerDependencies",
  "peerDependenciesMeta",
  "bundleDependencies",
  "os",
  "cpu",
  "libc",
  "engines",
  "bin",
  "license",
  "deprecated",
] as const;

/** The environment npm runs `npm pack` with: none of the surrounding `npm test`'s npm_config_* settings. */
function packEnv(home: string): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home };
}

/** Orders release versions by major, minor, patch (a prerelease sorts before its release). */
function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = "", pre] = v.split("-", 2);
    return { parts: core.split(".").map(Number), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < 3; i++) {
    const d = (x.parts[i] ?? 0) - (y.parts[i] ?? 0);
    if (d !== 0) return d;
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}

export async function startFakeNpmRegistry(options: FakeNpmRegistryOptions): Promise<FakeNpmRegistry> {
  const lock = JSON.parse(await readFile(path.join(options.root, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  // name -> version -> path of that version's install, relative to the root.
  const known = new Map<string, Map<string, string>>();
  for (const [location, entry] of Object.entries(lock.packages)) {
    if (location === "" || entry.link || !entry.version) continue;
    const name = entry.name ?? location.slice(location.lastIndexOf("node_modules/") + "node_modules/".length);
    const versions = known.get(name) ?? new Map<string, string>();
    if (!versions.has(entry.version)) versions.set(entry.version, location);
    known.set(name, versions);
  }

  const tarballs = new Map<string, string>(); // URL path -> file
  const packuments = new Map<string, Promise<object>>();
  const requests: string[] = [];
  let url = "";

  async function versionEntry(name: string, version: string, location: string): Promise<Record<string, unknown>> {
    const lockEntry = lock.packages[location]!;
    const dir = path.join(options.root, location);
    const installed = await access(path.join(dir, "package.json")).then(
      () => true,
      () => false,
    );
    const base = name.slice(name.lastIndexOf("/") + 1);
    const tarballPath = `/${name}/-/${base}-${version}.tgz`;
    if (!installed) {
      // Described from the lock only: enough for npm to decide it does not apply to this platform.
      const manifest: Record<string, unknown> = { name, version };
      for (const field of MANIFEST_FIELDS) if (field in lockEntry) manifest[field] = lockEntry[field as keyof LockEntry];
      return { ...manifest, dist: { tarball: `${url}${tarballPath}`, integrity: lockEntry.integrity } };
    }
    const packageJson = JSON.parse(await readFile(path.join(dir, "package.json"), "utf8")) as Record<string, unknown>;
    const { stdout } = await run("npm", ["pack", dir, "--ignore-scripts", "--json", "--pack-destination", options.workDir], {
      env: packEnv(options.workDir),
      maxBuffer: 64 * 1024 * 1024,
    });
    const [packed] = JSON.parse(stdout) as Array<{ filename: string; integrity: string; shasum: string }>;
    if (!packed) throw new Error(`npm pack ${dir} reported nothing`);
    tarballs.set(tarballPath, path.join(options.workDir, packed.filename));
    const manifest: Record<string, unknown> = { name, version };
    for (const field of MANIFEST_FIELDS) if (field in packageJson) manifest[field] = packageJson[field];
    const scripts = (packageJson.scripts ?? {}) as Record<string, unknown>;
    if (["preinstall", "install", "postinstall"].some((s) => s in scripts)) manifest.hasInstallScript = true;
    return { ...manifest, dist: { tarball: `${url}${tarballPath}`, integrity: packed.integrity, shasum: packed.shasum } };
  }

  async function packument(name: string, versions: Map<string, string>): Promise<object> {
    const entries: Record<string, unknown> = {};
    for (const [version, location] of versions) entries[version] = await versionEntry(name, version, location);
    const latest = [...versions.keys()].sort(compareVersions).at(-1)!;
    return { _id: name, name, "dist-tags": { latest }, versions: entries };
  }

  function send(res: ServerResponse, status: number, body: string | Buffer, type: string): void {
    res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
    res.end(body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const pathname = new URL(req.url ?? "/", "http://registry").pathname;
    if (req.method !== "GET") {
      send(res, 405, JSON.stringify({ error: "Method not allowed" }), "application/json");
      return 405;
    }
    const tarball = tarballs.get(decodeURIComponent(pathname));
    if (tarball) {
      send(res, 200, await readFile(tarball), "application/octet-stream");
      return 200;
    }
    const name = decodeURIComponent(pathname.slice(1));
    const versions = known.get(name);
    if (!versions) {
      send(res, 404, JSON.stringify({ error: "Not found" }), "application/json");
      return 404;
    }
    let doc = packuments.get(name);
    if (!doc) {
      doc = packument(name, versions);
      packuments.set(name, doc);
    }
    send(res, 200, JSON.stringify(await doc), "application/json");
    return 200;
  }

  const server = createServer((req, res) => {
    handle(req, res).then(
      (status) => requests.push(`${req.method} ${req.url} ${status}`),
      (error: unknown) => {
        requests.push(`${req.method} ${req.url} 500`);
        if (!res.headersSent) send(res, 500, JSON.stringify({ error: String(error) }), "application/json");
        else res.destroy();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
