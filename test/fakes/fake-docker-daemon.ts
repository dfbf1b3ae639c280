/**
 * A Docker Engine API on 127.0.0.1, enough for the real `docker` CLI's legacy builder
 * (`DOCKER_BUILDKIT=0 docker build`): the CLI pings it, then uploads the build context as a tar,
 * filtered by `.dockerignore` on the client side. The fake records which files that tar holds; it
 * builds nothing.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeDockerDaemon {
  /** For DOCKER_HOST. */
  host: string;
  /** The paths of each uploaded build context, in upload order (directories end in "/"). */
  contexts: string[][];
  /** The query of each build request (`dockerfile`, `t`, `buildargs`, …). */
  builds: Array<Record<string, string>>;
  close(): Promise<void>;
}

const API_VERSION = "1.47";

function field(header: Buffer, start: number, length: number): string {
  const raw = header.subarray(start, start + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? raw.length : end).toString("utf8");
}

/** The entry names of a tar (ustar, with PAX extended headers for long names, as Go's archive/tar writes). */
function tarEntries(tar: Buffer): string[] {
  const names: string[] = [];
  let paxPath: string | undefined;
  for (let offset = 0; offset + 512 <= tar.length; ) {
    const header = tar.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const size = Number.parseInt(field(header, 124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156] ?? 0);
    const body = tar.subarray(offset + 512, offset + 512 + size);
    offset += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      // Records: "<length> <key>=<value>\n".
      paxPath = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(body.toString("utf8"))?.[1];
      continue;
    }
    if (type === "g") continue;
    const prefix = field(header, 345, 155);
    const name = paxPath ?? (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    paxPath = undefined;
    names.push(name);
  }
  return names;
}

export async function startFakeDockerDaemon(): Promise<FakeDockerDaemon> {
  const contexts: string[][] = [];
  const builds: Array<Record<string, string>> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://docker");
      const headers = { "api-version": API_VERSION, ostype: "linux", "docker-experimental": "false" };
      if (url.pathname === "/_ping") {
        res.writeHead(200, { ...headers, "content-type": "text/plain" }).end(req.method === "HEAD" ? undefined : "OK");
        return;
      }
      if (req.method === "POST" && /^\/v[\d.]+\/build$/.test(url.pathname)) {
        builds.push(Object.fromEntries(url.searchParams));
        contexts.push(tarEntries(Buffer.concat(chunks)));
        const id = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        res.writeHead(200, { ...headers, "content-type": "application/json" });
        res.end(`${JSON.stringify({ stream: "Successfully built 0123456789ab\n" })}\n${JSON.stringify({ aux: { ID: id } })}\n`);
        return;
      }
      res.writeHead(404, { ...headers, "content-type": "application/json" }).end(JSON.stringify({ message: `fake daemon: no ${req.method} ${url.pathname}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `tcp://127.0.0.1:${port}`,
    contexts,
    builds,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
