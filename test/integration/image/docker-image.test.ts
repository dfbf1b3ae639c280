// The image and its compose file, checked without a Docker engine: the real `docker` CLI uploads the
// build context to a fake daemon (so .dockerignore is applied by Docker's own code), git decides what
// .gitignore keeps out, the HEALTHCHECK's own command runs against a worker's health port, and the
// compose file is read with the `yaml` package as Compose would read it.
import { execFile, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml, parseDocument } from "yaml";
import { listenHealthServer } from "../../../src/web/health-server.js";
import { cleanGitEnv, startFakeDockerDaemon, type FakeDockerDaemon } from "../../fakes/index.js";

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, "../../..");

interface Instruction {
  keyword: string;
  args: string;
}

interface Stage {
  name: string | undefined;
  instructions: Instruction[];
}

/** Dockerfile instructions per stage: comment lines dropped, continuation lines joined, keyword upper-cased. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = "";
  for (const line of text.split("\n")) {
    if (/^\s*#/.test(line)) continue;
    if (line.endsWith("\\")) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const whole = `${pending}${line}`.trim();
    pending = "";
    if (whole) logical.push(whole);
  }
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, keyword = "", args = ""] = /^(\S+)\s*(.*)$/s.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, " ").trim() };
    if (instruction.keyword === "FROM") stages.push({ name: /\sAS\s+(\S+)$/i.exec(args)?.[1], instructions: [] });
    stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

const find = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);

/** `KEY=value KEY2="quoted value"` pairs, as LABEL, ENV and ARG write them. */
function pairs(args: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of args.matchAll(/([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    out[match[1]!] = match[2]!.startsWith('"') ? (JSON.parse(match[2]!) as string) : match[2]!;
  }
  return out;
}

let dockerfile: Stage[];
let final: Stage;
let pkg: { version: string; license: string; description: string };

beforeAll(async () => {
  dockerfile = parseDockerfile(await readFile(path.join(root, "Dockerfile"), "utf8"));
  final = dockerfile.at(-1)!;
  pkg = JSON.parse(await readFile(path.join(root, "package.json"), "utf8")) as typeof pkg;
});

describe("Dockerfile", () => {
  it("the runtime layer holds only the production dependencies, from a stage that installs nothing else", () => {
    const copies = find(final, "COPY").map((c) => c.args);
    const modules = copies.find((args) => /\s\/app\/node_modules\s/.test(`${args} `));
    expect(modules).toBeDefined();
    const from = /--from=(\S+)/.exec(modules!)?.[1];
    const source = dockerfile.find((s) => s.name === from)!;
    const runs = find(source, "RUN").map((r) => r.args);
    expect(runs).toEqual(["npm ci --omit=dev"]);
    // The bundle comes from the build stage; its node_modules (devDependencies: what the bundle holds) do not.
    // The CLI and its chunks, not the Action's bundle.
    expect(copies).toEqual(expect.arrayContaining(["--from=build /app/dist/cli.js ./dist/cli.js", "--from=build /app/dist/chunks ./dist/chunks"]));
    expect(copies.some((args) => args.includes("action.js"))).toBe(false);
    expect(copies.some((args) => args.startsWith("--from=build") && args.includes("node_modules"))).toBe(false);
  });

  it("`--omit=dev` installs only what the bundle leaves external (scripts/build.mjs)", async () => {
    const build = await readFile(path.join(root, "scripts/build.mjs"), "utf8");
    const externals = JSON.parse(/external: (\[[^\]]*\])/.exec(build)![1]!) as string[];
    const external = (name: string): boolean => externals.some((pattern) => (pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
    const dependencies = Object.keys((pkg as unknown as { dependencies?: Record<string, string> }).dependencies ?? {});
    expect(dependencies.length).toBeGreaterThan(0);
    expect(dependencies.filter((name) => !external(name))).toEqual([]);
  });

  it("carries the OCI labels, from package.json and app.yml", async () => {
    const labels = Object.assign({}, ...find(final, "LABEL").map((l) => pairs(l.args))) as Record<string, string>;
    const args = Object.assign({}, ...find(final, "ARG").map((a) => pairs(a.args))) as Record<string, string>;
    const app = parseYaml(await readFile(path.join(root, "app.yml"), "utf8")) as { url: string };
    expect(labels).toEqual({
      "org.opencontainers.image.title": "tackle",
      "org.opencontainers.image.description": pkg.description,
      "org.opencontainers.image.source": app.url,
      "org.opencontainers.image.licenses": pkg.license,
      "org.opencontainers.image.version": "${VERSION}",
    });
    // `--build-arg VERSION=…` at release; the default follows package.json.
    expect(args.VERSION).toBe(pkg.version);
  });

  it("listens where it says: ENV PORT, EXPOSE and the HEALTHCHECK agree", () => {
    const env = Object.assign({}, ...find(final, "ENV").map((e) => pairs(e.args))) as Record<string, string>;
    expect(env.PORT).toBe("3000");
    expect(find(final, "EXPOSE").map((e) => e.args)).toEqual([env.PORT]);
    const [healthcheck] = find(final, "HEALTHCHECK");
    expect(healthcheck!.args).toMatch(/--interval=\d+s .*--timeout=\d+s .*--start-period=\d+s/);
    expect(find(final, "ENTRYPOINT")[0]!.args).toBe('["/usr/bin/tini", "--", "node", "/app/dist/cli.js"]');
  });

  describe("the HEALTHCHECK command, run as Docker runs it (exec form, the image's PORT)", () => {
    let argv: string[];
    beforeAll(() => {
      const args = find(final, "HEALTHCHECK")[0]!.args;
      argv = JSON.parse(args.slice(args.indexOf("CMD ") + 4)) as string[];
      expect(argv.slice(0, 2)).toEqual(["node", "-e"]);
    });
    const probe = (port: number): Promise<number | null> =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, argv.slice(1), { env: { PATH: process.env.PATH, PORT: String(port) }, stdio: "ignore" });
        child.once("exit", (code) => resolve(code));
      });

    it("healthy (0) against a worker's health port, whether or not Redis answers", async () => {
      for (const ready of [true, false]) {
        const health = await listenHealthServer({ port: 0, host: "127.0.0.1", ready: async () => ready });
        try {
          expect(await probe(health.port)).toBe(0);
        } finally {
          await health.close();
        }
      }
    });

    it("unhealthy (1) when nothing listens on PORT, and when /healthz does not answer 200", async () => {
      const health = await listenHealthServer({ port: 0, host: "127.0.0.1", ready: async () => true });
      const closedPort = health.port;
      await health.close();
      expect(await probe(closedPort)).toBe(1);

      const failing = http.createServer((_req, res) => res.writeHead(500).end());
      await new Promise<void>((resolve) => failing.listen(0, "127.0.0.1", resolve));
      try {
        expect(await probe((failing.address() as AddressInfo).port)).toBe(1);
      } finally {
        failing.close();
      }
    });
  });
});

// Never skipped: `.ci/run` installs the docker CLI (Debian's docker.io) where it is missing.
const dockerCli = spawnSync("docker", ["--version"], { stdio: "ignore" }).status === 0;

describe(".dockerignore, applied by the docker CLI to the context it uploads", () => {
  it("has the docker CLI to apply it (`.ci/run` installs it)", () => {
    expect(dockerCli, "the docker CLI is not on PATH: install it (apt-get install docker.io) to run these tests").toBe(true);
  });

  let daemon: FakeDockerDaemon;
  let dir: string;
  let sent: string[];
  const planted = [
    ".env",
    ".env.production",
    "secrets/tackle.pem",
    "tackle.2026-05-01.private-key.pem",
    "src/fixtures/app.pem",
    "src/.env",
    ".tackle/transcripts/job.jsonl",
    "node_modules/pino/index.js",
    ".git/config",
    "coverage/index.html",
  ];

  beforeAll(async () => {
    daemon = await startFakeDockerDaemon();
    dir = await mkdtemp(path.join(os.tmpdir(), "tackle-docker-context-"));
    // A checkout as a developer has it: every file git tracks or would add, and what must never leave the machine.
    const { stdout } = await run("git", ["ls-files", "--cached", "--others", "--exclude-standard"], { cwd: root, env: cleanGitEnv(os.tmpdir()) });
    const tracked = stdout.split("\n").filter(Boolean);
    for (const file of [...tracked, ...planted]) {
      await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
      await writeFile(path.join(dir, file), file === "Dockerfile" || file === ".dockerignore" ? await readFile(path.join(root, file)) : "x\n");
    }
    await writeFile(path.join(dir, ".dockerignore"), await readFile(path.join(root, ".dockerignore")));
    await writeFile(path.join(dir, "Dockerfile"), await readFile(path.join(root, "Dockerfile")));
    await mkdir(path.join(dir, ".docker"));
    const build = await run("docker", ["build", "-t", "tackle-context-test", dir], {
      env: { PATH: process.env.PATH, HOME: dir, DOCKER_CONFIG: path.join(dir, ".docker"), DOCKER_HOST: daemon.host, DOCKER_BUILDKIT: "0" },
    });
    expect(build.stdout).toContain("Successfully built");
    sent = daemon.contexts[0]!.filter((entry) => !entry.endsWith("/"));
  });
  afterAll(async () => {
    await daemon?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("keeps keys, .env files, state, node_modules and git out", () => {
    for (const file of planted) expect(sent).not.toContain(file);
    expect(sent.filter((file) => /(^|\/)\.env|\.pem$|(^|\/)secrets\//.test(file))).toEqual([]);
  });

  it("sends what the Dockerfile copies from the context, and nothing else", () => {
    const sources = dockerfile
      .flatMap((stage) => find(stage, "COPY"))
      .filter((copy) => !copy.args.startsWith("--from="))
      .flatMap((copy) => copy.args.split(" ").slice(0, -1));
    const copied = (file: string): boolean => sources.some((source) => file === source || file.startsWith(`${source}/`));
    expect(sent.filter((file) => !copied(file) && file !== "Dockerfile" && file !== ".dockerignore")).toEqual([]);
    for (const source of sources) expect(sent.some((file) => file === source || file.startsWith(`${source}/`))).toBe(true);
    expect(sent).toContain("src/main/worker.ts");
  });
});

describe(".gitignore, as git reads it", () => {
  it("keeps keys, .env files, secrets/ and .tackle/ out of git, and not the sources or the committed bundle", async () => {
    const ignored = [".env", ".env.local", "secrets/tackle.pem", "tackle.2026-05-01.private-key.pem", "docs/app.pem", ".tackle/transcripts/a.jsonl"];
    const kept = ["src/main/worker.ts", ".env.example", "dist/action.js", "docs/docker-compose.yml", "Dockerfile", ".dockerignore"];
    const result = await run("git", ["check-ignore", "--no-index", "--verbose", "--non-matching", ...ignored, ...kept], {
      cwd: root,
      env: cleanGitEnv(os.tmpdir()),
    }).catch((error: { stdout: string }) => error);
    // One line per path: "<source>:<line>:<pattern>\t<path>" for the last pattern that matched ("!…" re-includes),
    // or "::\t<path>" when none did.
    const verdicts = new Map(
      result.stdout
        .trim()
        .split("\n")
        .map((line) => {
          const [where = "", file = ""] = line.split("\t");
          const pattern = where.split(":").slice(2).join(":");
          return [file, pattern !== "" && !pattern.startsWith("!")] as const;
        }),
    );
    for (const file of ignored) expect([file, verdicts.get(file)]).toEqual([file, true]);
    for (const file of kept) expect([file, verdicts.get(file)]).toEqual([file, false]);
  });
});

describe("docs/docker-compose.yml", () => {
  interface Service {
    build?: string;
    command?: string[];
    environment?: Record<string, string>;
    healthcheck?: { test: string[] };
    ports?: string[];
    volumes?: string[];
  }
  let compose: { services: Record<string, Service> };
  let imagePort: string;

  beforeAll(async () => {
    const text = await readFile(path.join(root, "docs/docker-compose.yml"), "utf8");
    const document = parseDocument(text, { uniqueKeys: true, merge: true });
    expect(document.errors).toEqual([]);
    compose = document.toJS({ maxAliasCount: 100 }) as typeof compose;
    imagePort = (Object.assign({}, ...find(final, "ENV").map((e) => pairs(e.args))) as Record<string, string>).PORT!;
  });

  it("each service built from the image serves /healthz where the image's HEALTHCHECK probes", () => {
    const built = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
    expect(built.map(([name]) => name).sort()).toEqual(["server", "worker"]);
    for (const [name, service] of built) {
      expect([name, path.resolve(root, "docs", service.build!)]).toEqual([name, root]);
      // The image's own HEALTHCHECK applies (no override), probing PORT from the environment or the image.
      expect([name, service.healthcheck]).toEqual([name, undefined]);
      const probed = service.environment?.PORT ?? imagePort;
      const [role, ...args] = service.command ?? ["server"];
      if (role === "worker") {
        const at = args.indexOf("--port");
        expect([name, at >= 0 ? args[at + 1] : "no --port"]).toEqual([name, probed]);
      } else {
        expect([name, role]).toEqual([name, "server"]);
        // The server listens on PORT; its published port maps to it.
        for (const mapping of service.ports ?? []) expect(mapping.split(":").at(-1)).toBe(probed);
      }
    }
  });

  it("mounts the App's key from secrets/, which neither git nor the image context takes", async () => {
    const keyMounts = Object.values(compose.services)
      .flatMap((s) => s.volumes ?? [])
      .filter((v) => v.includes(".pem"));
    expect(keyMounts.length).toBeGreaterThan(0);
    for (const mount of keyMounts) {
      const host = path.relative(root, path.resolve(root, "docs", mount.split(":")[0]!));
      expect(host.startsWith("secrets/")).toBe(true);
      expect(mount.endsWith(":ro")).toBe(true);
      await run("git", ["check-ignore", "--no-index", "-q", host], { cwd: root, env: cleanGitEnv(os.tmpdir()) });
    }
    expect((await readFile(path.join(root, ".dockerignore"), "utf8")).split("\n")).toContain("**/secrets/");
  });
});
