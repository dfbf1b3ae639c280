import { afterEach, describe, expect, it, vi } from "vitest";
import { Composer, type CST, Parser } from "yaml";
import { MAX_YAML_ALIASES, MAX_YAML_DEPTH, MAX_YAML_VALUES, parseBoundedYaml } from "../../../src/config/parse-bounded-yaml.js";

const TOO_MANY_VALUES = `holds more than ${MAX_YAML_VALUES} keys and values (an alias counts as all it stands for); Tackle reads nothing this large`;

/** A mapping of `count` keys, each with a value: 1 + 2 × count values. */
const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}: v`).join("\n");
/** A mapping of `count` keys without values: 1 + 2 × count values too (each empty value is one). */
const emptyValues = (count: number) => Array.from({ length: count }, (_, i) => `k${i}:`).join("\n");
/** `items` lines of `line`. */
const lines = (line: string, items: number) => `${line}\n`.repeat(items);

describe("parseBoundedYaml: duplicate keys, found in one pass", () => {
  it("names each repeated key where it starts, in the order of the text, with syntax errors", () => {
    const parsed = parseBoundedYaml("a: 1\nb:\n  c: 1\n  d: [x\n  c: 2\na: 3\n");
    expect(parsed.kind).toBe("invalid");
    if (parsed.kind !== "invalid") return;
    expect(parsed.problems.filter((p) => p.message === "Map keys must be unique")).toEqual([
      { message: "Map keys must be unique", line: 5, col: 3 },
      { message: "Map keys must be unique", line: 6, col: 1 },
    ]);
    const lineOrder = parsed.problems.map((p) => (p.line ?? 0) * 1000 + (p.col ?? 0));
    expect(lineOrder).toEqual([...lineOrder].sort((a, b) => a - b));
  });

  it("in flow mappings too, and compares keys as the yaml library did: by value, a number not the same as a string", () => {
    expect(parseBoundedYaml("{x: 1, y: 2, x: 3}\n")).toMatchObject({ kind: "invalid", problems: [{ message: "Map keys must be unique", line: 1, col: 14 }] });
    expect(parseBoundedYaml("1: a\n'1': b\n01: c\n").kind).toBe("invalid"); // 01 is the number 1 again
    expect(parseBoundedYaml("1: a\n'1': b\ntrue: c\n'true': d\n")).toMatchObject({ kind: "ok" });
  });

  it("the same key in two mappings is no duplicate", () => {
    expect(parseBoundedYaml("a: {x: 1}\nb: {x: 1}\nc:\n  - x: 1\n  - x: 2\n")).toMatchObject({
      kind: "ok",
      data: { a: { x: 1 }, b: { x: 1 }, c: [{ x: 1 }, { x: 2 }] },
    });
  });
});

describe("parseBoundedYaml: how much it reads", () => {
  it(`reads ${MAX_YAML_VALUES} keys and values, not one more, whatever their shape`, () => {
    const half = (MAX_YAML_VALUES - 1) / 2;
    for (const [fits, over] of [
      [keys(Math.floor(half)), keys(Math.floor(half) + 1)], // a mapping of scalars
      [lines("-", MAX_YAML_VALUES - 1), lines("-", MAX_YAML_VALUES)], // empty items: no scalar token
      [emptyValues(Math.floor(half)), emptyValues(Math.floor(half) + 1)], // keys without values
      [`[${"[],".repeat(MAX_YAML_VALUES - 1)}]`, `[${"[],".repeat(MAX_YAML_VALUES)}]`], // flow lists
    ]) {
      expect(parseBoundedYaml(fits as string).kind).toBe("ok");
      expect(parseBoundedYaml(over as string)).toEqual({ kind: "refused", problem: TOO_MANY_VALUES });
    }
  });

  it("refuses a text of far too many values before building it, with the same problem", () => {
    expect(parseBoundedYaml(keys(200_000))).toEqual({ kind: "refused", problem: TOO_MANY_VALUES });
  });

  it("counts an alias as everything it repeats, so a few aliases cannot make the data large", () => {
    const anchor = `a: &a [${Array.from({ length: 99 }, () => "x").join(", ")}]\n`; // 1 key + 1 list + 99 values
    const aliases = (count: number) => `${anchor}b: [${Array.from({ length: count }, () => "*a").join(", ")}]\n`; // 1 key + 1 list + 100 each
    const fitting = Math.floor((MAX_YAML_VALUES - 1 - 101 - 2) / 100);
    expect(parseBoundedYaml(aliases(fitting)).kind).toBe("ok");
    expect(parseBoundedYaml(aliases(fitting + 1))).toEqual({ kind: "refused", problem: TOO_MANY_VALUES });

    // Each level repeats the one before ten times: 40 aliases, 11,111 values.
    const ten = (alias: string) => `[${Array.from({ length: 10 }, () => alias).join(", ")}]`;
    const laughs = `a: &a ${ten("x")}\nb: &b ${ten("*a")}\nc: &c ${ten("*b")}\nd: &d ${ten("*c")}\ne: ${ten("*d")}\n`;
    expect(parseBoundedYaml(laughs)).toEqual({ kind: "refused", problem: TOO_MANY_VALUES });
  });

  it(`uses at most ${MAX_YAML_ALIASES} aliases`, () => {
    const aliases = (count: number) => `a: &a x\nb:\n${lines("  - *a", count)}`;
    expect(parseBoundedYaml(aliases(MAX_YAML_ALIASES))).toMatchObject({ kind: "ok" });
    expect(parseBoundedYaml(aliases(MAX_YAML_ALIASES + 1))).toEqual({
      kind: "refused",
      problem: `uses more than ${MAX_YAML_ALIASES} aliases (\`*name\`); Tackle reads no more`,
    });
  });

  it("refuses an alias inside the value it names, which would make the data a loop", () => {
    expect(parseBoundedYaml("a: 1\nb: &x\n  c: [1, *x]\n")).toEqual({ kind: "refused", problem: "has an alias, `*x`, inside the value it names", line: 3 });
    // The last anchor of a name before the alias is the one it names, as the yaml library resolves it.
    expect(parseBoundedYaml("a: &x 1\nb: &x [2]\nc: [*x, *x]\n")).toMatchObject({ kind: "ok", data: { c: [[2], [2]] } });
    expect(parseBoundedYaml("a: &x 1\nb: [&x 2, *x]\n")).toMatchObject({ kind: "ok", data: { b: [2, 2] } });
  });
});

const TOO_DEEP = `nests lists and mappings more than ${MAX_YAML_DEPTH} levels deep; Tackle reads nothing nested this far`;
/** `levels` block lists on one line: `- - - x`. */
const blockLists = (levels: number) => `${"- ".repeat(levels)}x\n`;
/** `levels` block mappings, one key a line, each indented under the last; the innermost key has a value. */
const blockMaps = (levels: number) => `${Array.from({ length: levels }, (_, i) => `${"  ".repeat(i)}k${i}:`).join("\n")} v\n`;
/** `levels` flow lists: `[[[x]]]`. */
const flowLists = (levels: number) => `${"[".repeat(levels)}x${"]".repeat(levels)}\n`;
/** `levels` flow mappings: `{k: {k: x}}`. */
const flowMaps = (levels: number) => `${"{k: ".repeat(levels)}x${"}".repeat(levels)}\n`;
/** The depth of nested arrays and objects in plain data, iteratively. */
function dataDepth(data: unknown): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value: data, depth: 0 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.value === null || typeof top.value !== "object") continue;
    deepest = Math.max(deepest, top.depth + 1);
    for (const value of Object.values(top.value)) stack.push({ value, depth: top.depth + 1 });
  }
  return deepest;
}

describe("parseBoundedYaml: how deep it reads", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it(`reads lists and mappings nested ${MAX_YAML_DEPTH} deep, block or flow, and refuses one level more with the line`, () => {
    for (const nest of [blockLists, blockMaps, flowLists, flowMaps]) {
      const fits = parseBoundedYaml(nest(MAX_YAML_DEPTH));
      expect(fits.kind).toBe("ok");
      expect(fits.kind === "ok" && dataDepth(fits.data)).toBe(MAX_YAML_DEPTH);
    }
    expect(parseBoundedYaml(blockLists(MAX_YAML_DEPTH + 1))).toEqual({ kind: "refused", problem: TOO_DEEP, line: 1 });
    expect(parseBoundedYaml(flowLists(MAX_YAML_DEPTH + 1))).toEqual({ kind: "refused", problem: TOO_DEEP, line: 1 });
    expect(parseBoundedYaml(flowMaps(MAX_YAML_DEPTH + 1))).toEqual({ kind: "refused", problem: TOO_DEEP, line: 1 });
    // The line is the one that opens the level past the limit.
    expect(parseBoundedYaml(blockMaps(MAX_YAML_DEPTH + 1))).toEqual({ kind: "refused", problem: TOO_DEEP, line: MAX_YAML_DEPTH + 1 });
  });

  it("counts block and flow levels together, however the levels are written", () => {
    const block = "a:\n  b:\n    - ";
    const flow = (levels: number) => `${block}${"[".repeat(levels)}${"]".repeat(levels)}\n`;
    expect(parseBoundedYaml(flow(MAX_YAML_DEPTH - 3)).kind).toBe("ok");
    expect(parseBoundedYaml(flow(MAX_YAML_DEPTH - 2))).toEqual({ kind: "refused", problem: TOO_DEEP, line: 3 });
    // A list as a mapping's value at the mapping's own indent is a level of its own.
    const compact = (levels: number) => `${Array.from({ length: levels / 2 }, (_, i) => `${"  ".repeat(i)}- k${i}:`).join("\n")} v\n`;
    expect(parseBoundedYaml(compact(MAX_YAML_DEPTH)).kind).toBe("ok");
    expect(parseBoundedYaml(compact(MAX_YAML_DEPTH + 2))).toMatchObject({ kind: "refused", problem: TOO_DEEP });
    // Invalid YAML nests too (`a: b: c` opens a mapping at one indent); it is refused the same way.
    expect(parseBoundedYaml(`a${": b".repeat(MAX_YAML_DEPTH + 1)}\n`)).toMatchObject({ kind: "refused", problem: TOO_DEEP, line: 1 });
  });

  it("refuses thousands of levels (within the count of values) before the document is composed, the parser holding at most one level more than the limit", () => {
    const compose = vi.spyOn(Composer.prototype, "compose");
    const next = Parser.prototype.next;
    let deepest = 0;
    vi.spyOn(Parser.prototype, "next").mockImplementation(function* (this: Parser, source: string) {
      yield* next.call(this, source);
      deepest = Math.max(deepest, this.stack.filter((token: CST.Token) => token.type !== "document" && "items" in token).length);
    });
    for (const text of [blockLists(9_990), flowLists(9_990), blockMaps(3_000), `a${": b".repeat(3_000)}\n`]) {
      expect(parseBoundedYaml(text)).toMatchObject({ kind: "refused", problem: TOO_DEEP });
    }
    expect(compose).not.toHaveBeenCalled();
    expect(deepest).toBe(MAX_YAML_DEPTH + 1);
  });
});
