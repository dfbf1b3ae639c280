import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "dotenv";
import { TackleError } from "../errors/index.js";
import type { EnvVars } from "./env.js";

export interface DotEnvResult {
  /** The environment with the file's variables added under it. */
  env: Record<string, string | undefined>;
  /** The file read, or null when there is none. */
  path: string | null;
  /** Names the file set that the environment did not. */
  applied: string[];
  /** Names the file set that the environment already had (the environment's value was kept). */
  shadowed: string[];
}

/**
 * Probot's `.env`: the file in `dir`, added under the environment, so a variable already set (and not
 * empty, which counts as unset as in loadEnv) wins. Only `tackle server` and `tackle worker` read it: in
 * the Action and in `run --local` the working directory is a repository, whose committed `.env` could
 * point the model key at another host. Pure apart from reading the one file; `process.env` is not changed,
 * so the file's secrets reach no child process.
 */
export function withDotEnv(
  env: EnvVars,
  options: {
    dir: string;
    /** @defaultValue fs.readFileSync as UTF-8; throws ENOENT when there is no file */
    readFile?: (path: string) => string;
  },
): DotEnvResult {
  const path = join(options.dir, ".env");
  const read = options.readFile ?? ((file: string) => readFileSync(file, "utf8"));
  let text: string;
  try {
    text = read(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { env: { ...env }, path: null, applied: [], shadowed: [] };
    const reason = error instanceof Error ? error.message : String(error);
    throw new TackleError("env_invalid", `cannot read ${path}: ${reason}`, { cause: error });
  }
  const merged: Record<string, string | undefined> = { ...env };
  const applied: string[] = [];
  const shadowed: string[] = [];
  for (const [name, value] of Object.entries(parse(text))) {
    if ((env[name] ?? "") !== "") {
      shadowed.push(name);
      continue;
    }
    merged[name] = value;
    applied.push(name);
  }
  return { env: merged, path, applied, shadowed };
}

/**
 * Variables as `.env` lines that dotenv (and so `withDotEnv`) reads back unchanged: bare when the value
 * is plain, single-quoted (literal) when it holds no line break, double-quoted with `\n` for line breaks
 * (a PEM key on one line).
 */
export function formatDotEnv(vars: Readonly<Record<string, string>>): string {
  return Object.entries(vars)
    .map(([name, value]) => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new TackleError("env_invalid", `not a variable name: ${JSON.stringify(name)}`);
      return `${name}=${quote(name, value)}\n`;
    })
    .join("");
}

function quote(name: string, value: string): string {
  if (/^[A-Za-z0-9_./:@+,=-]*$/.test(value)) return value;
  if (!/[\r\n']/.test(value)) return `'${value}'`;
  // Inside double quotes dotenv turns \n into a line break and nothing else, so a quote or a backslash
  // could not be written back as it is.
  if (/["\\\r]/.test(value)) throw new TackleError("env_invalid", `${name}: the value cannot be written to .env`);
  return `"${value.replace(/\n/g, "\\n")}"`;
}
