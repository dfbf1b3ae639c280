import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebPage } from "../../../src/agent/ports.js";
import { isTackleError } from "../../../src/errors/index.js";
import type { TackleErrorCode } from "../../../src/errors/tackle-error.js";
import { createHttpClient, createWebFetchCache, createWebFetcher, type WebFetcherOptions } from "../../../src/net/index.js";

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** A loopback server whose routes the tests set; it counts the requests each path received. */
async function startServer(routes: Record<string, Handler>): Promise<{ origin: string; pattern: string; hits: Map<string, number>; server: http.Server }> {
  const hits = new Map<string, number>();
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes[path];
    if (route === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("no such page");
      return;
    }
    route(request, response);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, pattern: `127.0.0.1:${port}`, hits, server };
}

const send =
  (type: string, body: string | Buffer, headers: Record<string, string> = {}): Handler =>
  (_request, response) => {
    response.writeHead(200, { "content-type": type, ...headers }).end(body);
  };

const redirect =
  (location: string, status = 302): Handler =>
  (_request, response) => {
    response.writeHead(status, { location }).end();
  };

/** Waits forever (until the client goes away); `arrived` resolves when the request came in. */
function hang(): { handler: Handler; arrived: Promise<void> } {
  let arrive = () => {};
  const arrived = new Promise<void>((resolve) => {
    arrive = resolve;
  });
  return {
    arrived,
    handler: (_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("a start");
      arrive();
    },
  };
}

/** Resolves nothing: a test that needs no DNS fails loudly if the fetcher asks. */
const noDns = async (host: string): Promise<string[]> => {
  throw new Error(`unexpected DNS lookup of ${host}`);
};

async function failure(promise: Promise<WebPage>, code: TackleErrorCode): Promise<string> {
  const error = await promise.then(
    (page) => new Error(`expected ${code}, got a page of ${page.url}`),
    (reason: unknown) => reason,
  );
  if (!isTackleError(error, code)) throw error;
  return error.message;
}

const signal = () => new AbortController().signal;

const hung = hang();
const chainHops = 7;
let main: Awaited<ReturnType<typeof startServer>>;
let other: Awaited<ReturnType<typeof startServer>>;

beforeAll(async () => {
  other = await startServer({ "/secret": send("text/plain", "internal secret") });
  const chain: Record<string, Handler> = {};
  for (let hop = 0; hop < chainHops; hop += 1) chain[`/chain/${hop}`] = redirect(`/chain/${hop + 1}`, hop % 2 === 0 ? 301 : 307);
  chain[`/chain/${chainHops}`] = send("text/plain", "end of the chain");
  main = await startServer({
    ...chain,
    "/page": send(
      "text/html; charset=utf-8",
      `<!doctype html><html><head><title>Guide</title><style>p{color:red}</style><script>steal()</script></head>
       <body><h1>Install</h1><p>Run <code>npm i</code> and read <a href="/docs">the docs</a>.</p>
       <noscript>enable js</noscript><iframe src="/ad">ad</iframe><svg><text>logo</text></svg><ul><li>one</li><li>two</li></ul></body></html>`,
    ),
    "/notes.txt": send("text/plain", "plain notes\nline two"),
    "/data.json": send("application/json", '{"name":"tackle","n":1}'),
    "/feed.xml": send("application/atom+xml", "<feed><title>x</title></feed>"),
    "/latin1": send("text/plain; charset=iso-8859-1", Buffer.from("café ½", "latin1")),
    "/meta-charset": send("text/html", Buffer.concat([Buffer.from('<meta charset="windows-1252"><p>'), Buffer.from("naïve", "latin1"), Buffer.from("</p>")])),
    "/gzip": send("text/plain", gzipSync("unzipped text"), { "content-encoding": "gzip" }),
    "/image.png": send("image/png", Buffer.from([0x89, 0x50, 0x4e, 0x47])),
    "/big": send("text/plain", "x".repeat(5000), { "content-length": "5000" }),
    "/big-chunked": (_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 10; i += 1) response.write("y".repeat(500));
      response.end();
    },
    "/long": send("text/plain", "z".repeat(150_000)),
    "/to-other": redirect(`${other.origin}/secret`),
    "/to-loopback-80": redirect("http://127.0.0.1/secret"),
    "/to-localhost": redirect(`http://localhost:${new URL(other.origin).port}/secret`),
    "/to-metadata-name": redirect("http://metadata.example.com/latest/meta-data/"),
    "/to-file": redirect("file:///etc/passwd"),
    "/missing": (_request, response) => {
      response.writeHead(503, { "content-type": "text/plain" }).end("try later");
    },
    "/hang": hung.handler,
  });
});

afterAll(async () => {
  main.server.closeAllConnections();
  other.server.closeAllConnections();
  await Promise.all([new Promise((resolve) => main.server.close(resolve)), new Promise((resolve) => other.server.close(resolve))]);
});

const fetcher = (options: Partial<WebFetcherOptions> = {}) => createWebFetcher({ allow: [main.pattern], resolve: noDns, ...options });

describe("WebFetch over loopback servers named by ip:port", () => {
  it("converts HTML to markdown without scripts, styles, frames or graphics", async () => {
    const page = await fetcher().fetch(`${main.origin}/page`, signal());
    expect(page).toMatchObject({ url: `${main.origin}/page`, status: 200, contentType: "text/html", truncatedChars: 0, cached: false });
    expect(page.text).toContain("# Install");
    expect(page.text).toContain("Run `npm i` and read [the docs](/docs).");
    expect(page.text).toContain("-   one\n-   two");
    for (const hidden of ["steal", "color:red", "enable js", "ad", "logo"]) expect(page.text).not.toMatch(new RegExp(`\\b${hidden}\\b`));
  });

  it("returns plain text, JSON and XML as they are", async () => {
    const web = fetcher();
    expect(await web.fetch(`${main.origin}/notes.txt`, signal())).toMatchObject({ contentType: "text/plain", text: "plain notes\nline two" });
    expect(await web.fetch(`${main.origin}/data.json`, signal())).toMatchObject({ contentType: "application/json", text: '{"name":"tackle","n":1}' });
    expect(await web.fetch(`${main.origin}/feed.xml`, signal())).toMatchObject({ text: "<feed><title>x</title></feed>" });
  });

  it("decodes the declared charset, a <meta charset> and a gzip body", async () => {
    const web = fetcher();
    expect((await web.fetch(`${main.origin}/latin1`, signal())).text).toBe("café ½");
    expect((await web.fetch(`${main.origin}/meta-charset`, signal())).text).toBe("naïve");
    expect((await web.fetch(`${main.origin}/gzip`, signal())).text).toBe("unzipped text");
  });

  it("refuses an image, saying its type, without reading it as text", async () => {
    expect(await failure(fetcher().fetch(`${main.origin}/image.png`, signal()), "fetch_failed")).toBe(
      `${main.origin}/image.png is image/png, not text: WebFetch reads HTML, text, JSON and XML`,
    );
  });

  it("returns an error status with its body, and does not cache it", async () => {
    const web = fetcher();
    const before = main.hits.get("/missing") ?? 0;
    expect(await web.fetch(`${main.origin}/missing`, signal())).toMatchObject({ status: 503, text: "try later", cached: false });
    expect(await web.fetch(`${main.origin}/missing`, signal())).toMatchObject({ cached: false });
    expect(main.hits.get("/missing")).toBe(before + 2);
  });
});

describe("WebFetch redirects", () => {
  it("follows up to 5 redirects and reports the final URL", async () => {
    const page = await fetcher().fetch(`${main.origin}/chain/${chainHops - 5}`, signal());
    expect(page).toMatchObject({ url: `${main.origin}/chain/${chainHops}`, text: "end of the chain" });
  });

  it("refuses a 6th redirect", async () => {
    const before = main.hits.get(`/chain/${chainHops}`) ?? 0;
    expect(await failure(fetcher().fetch(`${main.origin}/chain/${chainHops - 6}`, signal()), "fetch_refused")).toBe(
      `${main.origin}/chain/${chainHops - 6}: more than 5 redirects (the next one went to ${main.origin}/chain/${chainHops})`,
    );
    expect(main.hits.get(`/chain/${chainHops}`) ?? 0).toBe(before);
  });

  it("refuses a redirect to a loopback server the operator did not name", async () => {
    expect(await failure(fetcher().fetch(`${main.origin}/to-other`, signal()), "fetch_refused")).toBe(
      `${other.pattern} is not in the operator's allow-list (TACKLE_FETCH_ALLOW) (a pattern without a port allows ports 80 and 443 only)`,
    );
    expect(other.hits.get("/secret")).toBeUndefined();
  });

  it("refuses a redirect to loopback even where `*` allows the host and port", async () => {
    const web = fetcher({ allow: ["*", main.pattern] });
    expect(await failure(web.fetch(`${main.origin}/to-loopback-80`, signal()), "fetch_refused")).toContain("127.0.0.1 is a loopback address");
  });

  it("refuses a redirect to a name that resolves to loopback or the metadata address", async () => {
    const resolved: string[] = [];
    const resolve = async (host: string) => {
      resolved.push(host);
      return host === "localhost" ? ["::1", "127.0.0.1"] : ["169.254.169.254"];
    };
    const port = new URL(other.origin).port;
    const web = fetcher({ allow: ["*", main.pattern, other.pattern], resolve });
    expect(await failure(web.fetch(`${main.origin}/to-localhost`, signal()), "fetch_refused")).toContain(
      `localhost:${port} is not in the operator's allow-list`,
    );
    expect(await failure(web.fetch(`${main.origin}/to-metadata-name`, signal()), "fetch_refused")).toBe(
      "metadata.example.com resolves to 169.254.169.254, a link-local address (169.254.0.0/16, cloud metadata included): only an exact ip:port in TACKLE_FETCH_ALLOW opens such a destination",
    );
    expect(resolved).toEqual(["metadata.example.com"]);
    expect(other.hits.get("/secret")).toBeUndefined();
  });

  it("refuses a redirect to another scheme", async () => {
    expect(await failure(fetcher().fetch(`${main.origin}/to-file`, signal()), "fetch_refused")).toBe(
      "the scheme file: is refused: WebFetch reads http and https URLs only",
    );
  });
});

describe("WebFetch refusals before any connection", () => {
  it("refuses an unlisted host without resolving it", async () => {
    expect(await failure(fetcher().fetch("https://docs.example.com/guide", signal()), "fetch_refused")).toBe(
      "docs.example.com:443 is not in the operator's allow-list (TACKLE_FETCH_ALLOW)",
    );
  });

  it("refuses an allowed name that resolves to a private address (every address counts)", async () => {
    const web = fetcher({ allow: ["docs.example.com"], resolve: async () => ["93.184.216.34", "10.0.0.7"] });
    expect(await failure(web.fetch("https://docs.example.com/guide", signal()), "fetch_refused")).toContain(
      "docs.example.com resolves to 10.0.0.7, a private address (10.0.0.0/8)",
    );
    const mapped = fetcher({ allow: ["docs.example.com"], resolve: async () => ["::ffff:127.0.0.1"] });
    expect(await failure(mapped.fetch("https://docs.example.com/guide", signal()), "fetch_refused")).toContain("IPv4-mapped address of 127.0.0.1");
  });

  it.each([
    ["http://2130706433/", "127.0.0.1 is a loopback address"],
    ["http://0x7f.1/", "127.0.0.1 is a loopback address"],
    ["http://017700000001/", "127.0.0.1 is a loopback address"],
    ["http://127.1/", "127.0.0.1 is a loopback address"],
    ["http://0/", "0.0.0.0 is a 'this network' address"],
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"],
    ["http://0xa9fea9fe/", "169.254.169.254 is a link-local address"],
    ["http://10.1.2.3/", "10.1.2.3 is a private address"],
    ["http://100.64.0.1/", "carrier-grade NAT"],
    ["http://[::1]/", "::1 is a loopback address"],
    ["http://[::]/", "the unspecified address"],
    ["http://[::ffff:127.0.0.1]/", "::ffff:7f00:1 is an IPv4-mapped address of 127.0.0.1, a loopback address"],
    ["http://[::ffff:a9fe:a9fe]/", "of 169.254.169.254, a link-local address"],
    ["http://[64:ff9b::7f00:1]/", "a NAT64 address of 127.0.0.1"],
    ["http://[2002:7f00:1::]/", "a 6to4 address of 127.0.0.1"],
    ["http://[fe80::1]/", "a link-local address (fe80::/10)"],
    ["http://[fd00::1]/", "a private (unique local) address"],
    ["http://224.0.0.1/", "a multicast address"],
    ["http://255.255.255.255/", "the broadcast address"],
  ])("refuses %s (numeric and mapped forms are judged by the address they mean)", async (url, why) => {
    expect(await failure(fetcher({ allow: null }).fetch(url, signal()), "fetch_refused")).toContain(why);
  });

  it.each(["file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hello", "javascript:alert(1)", "gopher://example.com/"])(
    "refuses %s, naming the scheme",
    async (url) => {
      expect(await failure(fetcher({ allow: null }).fetch(url, signal()), "fetch_refused")).toBe(
        `the scheme ${new URL(url).protocol} is refused: WebFetch reads http and https URLs only`,
      );
    },
  );

  it("refuses what is not a URL", async () => {
    expect(await failure(fetcher().fetch("docs.example.com/guide", signal()), "fetch_refused")).toBe('"docs.example.com/guide" is not an absolute URL');
  });

  it("refuses everything when TACKLE_FETCH_ALLOW is set and empty", async () => {
    const web = fetcher({ allow: [] });
    for (const url of [`${main.origin}/notes.txt`, "https://example.com/"]) {
      expect(await failure(web.fetch(url, signal()), "fetch_refused")).toBe("WebFetch is off: the operator set TACKLE_FETCH_ALLOW to an empty list");
    }
  });

  it("lets the repository's list narrow the operator's, never widen it", async () => {
    const narrowed = fetcher({ allow: [main.pattern, other.pattern], repoAllow: [main.pattern] });
    expect((await narrowed.fetch(`${main.origin}/notes.txt`, signal())).text).toBe("plain notes\nline two");
    expect(await failure(narrowed.fetch(`${other.origin}/secret`, signal()), "fetch_refused")).toContain(
      `${other.pattern} is not in this repository's allow-list (web_fetch.allow in .github/tackle.yml)`,
    );
    const widened = fetcher({ allow: [main.pattern], repoAllow: [main.pattern, other.pattern, "*"] });
    expect(await failure(widened.fetch(`${other.origin}/secret`, signal()), "fetch_refused")).toContain(`${other.pattern} is not in the operator's allow-list`);
    const off = fetcher({ allow: [main.pattern], repoAllow: [] });
    expect(await failure(off.fetch(`${main.origin}/notes.txt`, signal()), "fetch_refused")).toBe(
      "WebFetch is off for this repository: its web_fetch.allow is an empty list",
    );
    expect(other.hits.get("/secret")).toBeUndefined();
  });
});

describe("WebFetch caps", () => {
  it("reads at most maxBytes of a body and reports the rest as cut", async () => {
    const web = fetcher({ maxBytes: 1000 });
    const page = await web.fetch(`${main.origin}/big`, signal());
    expect(page.text).toBe("x".repeat(1000));
    expect(page.truncatedChars).toBe(4000); // the unread bytes, from Content-Length
    const chunked = await web.fetch(`${main.origin}/big-chunked`, signal());
    expect(chunked.text).toBe("y".repeat(1000));
    expect(chunked.truncatedChars).toBeGreaterThan(0); // no length to count: still not the whole page
  });

  it("cuts the text at maxChars and says how much was cut", async () => {
    const page = await fetcher().fetch(`${main.origin}/long`, signal());
    expect(page.text).toBe("z".repeat(100_000));
    expect(page.truncatedChars).toBe(50_000);
  });

  it("fails a fetch that takes longer than its timeout", async () => {
    expect(await failure(fetcher({ timeoutMs: 300 }).fetch(`${main.origin}/hang`, signal()), "fetch_failed")).toBe(
      `${main.origin}/hang: no complete answer within 0.3 s`,
    );
  });

  it("stops when the job's signal aborts", async () => {
    const controller = new AbortController();
    const before = main.hits.get("/hang") ?? 0;
    const fetching = fetcher().fetch(`${main.origin}/hang`, controller.signal);
    await hung.arrived;
    while ((main.hits.get("/hang") ?? 0) === before) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await failure(fetching, "aborted")).toBe("the fetch was cancelled");
    const aborted = new AbortController();
    aborted.abort();
    expect(await failure(fetcher().fetch(`${main.origin}/notes.txt`, aborted.signal), "aborted")).toBe("the fetch was cancelled");
  });
});

describe("WebFetch cache", () => {
  it("serves a repeated fetch from the cache for 15 minutes, then fetches again", async () => {
    let now = 1_000_000;
    const web = fetcher({ clock: () => now });
    const before = main.hits.get("/data.json") ?? 0;
    const first = await web.fetch(`${main.origin}/data.json`, signal());
    now += 15 * 60 * 1000 - 1;
    const second = await web.fetch(`${main.origin}/data.json`, signal());
    expect(first.cached).toBe(false);
    expect(second).toEqual({ ...first, cached: true });
    expect(main.hits.get("/data.json")).toBe(before + 1);
    now += 1;
    expect((await web.fetch(`${main.origin}/data.json`, signal())).cached).toBe(false);
    expect(main.hits.get("/data.json")).toBe(before + 2);
  });

  it("shares a cache between fetchers only under the same allow-lists", async () => {
    const cache = createWebFetchCache();
    const before = main.hits.get("/notes.txt") ?? 0;
    await fetcher({ cache }).fetch(`${main.origin}/notes.txt`, signal());
    expect((await fetcher({ cache }).fetch(`${main.origin}/notes.txt`, signal())).cached).toBe(true);
    expect(main.hits.get("/notes.txt")).toBe(before + 1);
    // Another job's lists: a fresh fetch, and a list that refuses the URL is never served from the cache.
    expect((await fetcher({ cache, repoAllow: [main.pattern] }).fetch(`${main.origin}/notes.txt`, signal())).cached).toBe(false);
    expect(await failure(fetcher({ cache, allow: [] }).fetch(`${main.origin}/notes.txt`, signal()), "fetch_refused")).toContain("WebFetch is off");
  });
});

describe("the HTTP client under WebFetch", () => {
  it("connects to the checked address without a DNS lookup, keeping the URL's host in the Host header", async () => {
    let host: string | undefined;
    const server = http.createServer((request, response) => {
      host = request.headers.host;
      response.writeHead(200, { "content-type": "text/plain" }).end("pinned");
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const { port } = server.address() as AddressInfo;
    try {
      // `pinned.invalid` never resolves (RFC 6761): reaching the server proves the socket's lookup was answered with the checked address.
      const rules = { key: "", checkUrl: (url: URL) => ({ host: url.hostname, port: Number(url.port), literal: false }), checkAddress: () => {} };
      const http = createHttpClient({ rules, resolve: async () => ["127.0.0.1"] });
      const response = await http.fetch(`http://pinned.invalid:${port}/`);
      expect(await response.text()).toBe("pinned");
      expect(response.status).toBe(200);
      expect(host).toBe(`pinned.invalid:${port}`);
    } finally {
      server.close();
    }
  });
});
