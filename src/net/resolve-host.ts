import { lookup } from "node:dns/promises";

/** Every address a host name resolves to (A and AAAA, in the resolver's order), as the system resolver answers. */
export async function resolveHost(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}
