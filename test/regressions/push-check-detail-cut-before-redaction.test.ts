// The Action's push check (`checkPushAccess`) kept GitHub's answer to a refused token as the problem's
// detail, cut to 300 characters before anything masked it; the detail reaches the step's error, the
// step summary and the log. A server (a GitHub Enterprise proxy) that echoed the token across the cut
// left a piece no later mask finds by value. Now the body is masked with the token first, then cut.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkPushAccess } from "../../src/main/action-github-access.js";

const alnum = (n: number) => "aB3dE6gH9kPq2Rs5Tu8V".repeat(Math.ceil(n / 20)).slice(0, n);
/** No known token format: only masking by value can catch it. */
const TOKEN = `enterprise-${alnum(60)}`;

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

describe("the push check's detail of a refused token", () => {
  it("holds no piece of the token, wherever the server echoed it", async () => {
    const page = `Refused ${"x ".repeat(120)}${TOKEN} (see the docs)`;
    server = createServer((request, response) => {
      request.resume();
      response.writeHead(401, { "content-type": "text/plain" }).end(page);
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;

    const problem = await checkPushAccess(`http://127.0.0.1:${port}/o/r.git`, TOKEN);

    expect(problem?.status).toBe(401);
    expect(problem?.detail).toContain("Refused");
    const secret = TOKEN.slice("enterprise-".length);
    for (let start = 0; start + 12 <= secret.length; start++) expect(problem?.detail).not.toContain(secret.slice(start, start + 12));
  });
});
