import { Composer, CST, Document, isAlias, isMap, isNode, isPair, isScalar, isSeq, Lexer, LineCounter, type Node, Parser, YAMLParseError } from "yaml";

/**
 * The most keys and values (every scalar, list and mapping, keys included) a repository's YAML may
 * hold, an alias counting as all it stands for. A Tackle config or front matter has a few hundred at
 * most; the schemas' own list limits allow about 3,000.
 */
export const MAX_YAML_VALUES = 5_000;
/** The most aliases (`*name`) a repository's YAML may use. */
export const MAX_YAML_ALIASES = 100;
/**
 * The most lists and mappings a repository's YAML may nest one inside another (a `[`/`{` or a block
 * list or mapping is one level). Tackle's own schemas nest four deep at most (`hooks.PreToolUse[]`,
 * `mcp_servers.<name>.command[]`), so 64 leaves room for any config someone means to write. The yaml
 * library composes and converts a document with about 1 KB of stack a level (measured with
 * `node --stack-size`: 64 levels need 55–65 KB more than `a: 1`), so a document at the limit takes
 * under a tenth of V8's ~984 KB stack, wherever in a call chain the parse runs.
 */
export const MAX_YAML_DEPTH = 64;

/** A problem of the text as YAML, with its position when it has one (1-based). */
export interface YamlProblem {
  message: string;
  line?: number | undefined;
  col?: number | undefined;
}

export type BoundedYaml =
  /** `data` is the document as plain JavaScript (undefined for an empty one); `doc` and `lines` locate its nodes. */
  | { kind: "ok"; data: unknown; doc: Document; lines: LineCounter; warnings: YamlProblem[] }
  /** Syntax errors and duplicate keys, in the order of the text; or a value that YAML cannot give as data. */
  | { kind: "invalid"; problems: YamlProblem[] }
  /**
   * Past MAX_YAML_VALUES, MAX_YAML_ALIASES or MAX_YAML_DEPTH, or an alias inside the value it names: one
   * problem, a predicate ("holds more than …") for the caller's subject, and the line of the alias or of
   * the level past the limit; no per-key work done.
   */
  | { kind: "refused"; problem: string; line?: number | undefined };

/**
 * One YAML document from a repository, parsed in Tackle's process at a cost linear in its size, with
 * bounds on what later steps (the schema, the problem list) walk:
 *   - a first count over the lexer's tokens refuses a text of far too many values before the parser
 *     builds it (the parser takes seconds over a 1 MB file of short keys; the count stops early);
 *   - the parse proper feeds the lexer's tokens to the library's CST parser one at a time and refuses
 *     a text nested past MAX_YAML_DEPTH before anything recursive goes deeper (see `parseCst`); its
 *     tokens are then composed into the document, as `parseDocument` does;
 *   - the yaml library's own duplicate-key check compares each key with every earlier key of its
 *     mapping, quadratic in the keys: it is off, and `walk` finds duplicates with one set per mapping;
 *   - the walk counts every value, an alias as all it repeats, so an alias cannot multiply the data
 *     past the limit, and refuses an alias inside the node it names (a loop the schema would follow).
 * The library's alias guard (`maxAliasCount`) is off: on the first use of an anchor it searches the
 * whole document once per alias inside the anchored node, quadratic in aliases, and the walk's count
 * bounds what aliases can make.
 */
export function parseBoundedYaml(text: string): BoundedYaml {
  const lexical = countTokens(text);
  if (lexical !== undefined) return { kind: "refused", problem: lexical };
  const lines = new LineCounter();
  const cst = parseCst(text, lines);
  if (cst.kind === "refused") return cst;
  const doc = composeFirst(cst.tokens, text.length);
  const at = (offset: number): Pick<YamlProblem, "line" | "col"> => lines.linePos(offset);
  const walked = walk(doc.contents);
  if (walked.kind === "refused") {
    const { problem, offset } = walked;
    return { kind: "refused", problem, line: offset === undefined ? undefined : lines.linePos(offset).line };
  }
  const problems = [
    ...doc.errors.map((error) => ({ offset: error.pos[0], message: firstLine(error.message) })),
    ...walked.duplicates.map((offset) => ({ offset, message: "Map keys must be unique" })),
  ].sort((a, b) => a.offset - b.offset);
  if (problems.length > 0) return { kind: "invalid", problems: problems.map(({ offset, message }) => ({ message, ...at(offset) })) };
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: -1 });
  } catch (error) {
    return { kind: "invalid", problems: [{ message: firstLine(error instanceof Error ? error.message : String(error)) }] };
  }
  const warnings = doc.warnings.map((warning) => ({ message: firstLine(warning.message), ...at(warning.pos[0]) }));
  return { kind: "ok", data, doc, lines, warnings };
}

const TOO_MANY_VALUES = `holds more than ${MAX_YAML_VALUES} keys and values (an alias counts as all it stands for); Tackle reads nothing this large`;
const TOO_MANY_ALIASES = `uses more than ${MAX_YAML_ALIASES} aliases (\`*name\`); Tackle reads no more`;
const TOO_DEEP = `nests lists and mappings more than ${MAX_YAML_DEPTH} levels deep; Tackle reads nothing nested this far`;

/**
 * Counts two kinds of the lexer's tokens, each kind at most one per value: those that begin one (a
 * scalar, an alias, a flow list or mapping) and those that introduce one (`-` an item, `?` a key, `:`
 * a key's value). So a text past twice the limit holds more values than the walk would accept; one
 * under it holds at most about four times the limit (an empty value has an indicator, a mapping its
 * first key), which is what the parser then builds. An alias is one token, so aliases are counted
 * exactly. Stops at the first limit passed.
 */
function countTokens(text: string): string | undefined {
  let tokens = 0;
  let aliases = 0;
  let scalarSource = false;
  for (const token of new Lexer().lex(text)) {
    // A plain or block scalar is a SCALAR mark, then its source, which may start with any character.
    if (scalarSource) {
      scalarSource = false;
      continue;
    }
    if (token === CST.SCALAR) scalarSource = true;
    else if (token.startsWith("*")) aliases += 1;
    else if (!VALUE_TOKEN.has(token) && !token.startsWith('"') && !token.startsWith("'")) continue;
    tokens += 1;
    if (tokens > 2 * MAX_YAML_VALUES) return TOO_MANY_VALUES;
    if (aliases > MAX_YAML_ALIASES) return TOO_MANY_ALIASES;
  }
  return undefined;
}

const VALUE_TOKEN = new Set(["{", "[", "-", "?", ":"]);

/**
 * The text's CST, or a refusal at the line where it opens a list or mapping past MAX_YAML_DEPTH levels.
 *
 * The yaml library's composer (and `toJS` after it) recurses once per level of the document, and its
 * CST parser recurses once per level it closes at a time (its `pop`/`step` pair). Thousands of levels
 * fit in a few kilobytes of text (`- - - … x`, `[[[…]]]`) and exhaust the stack, and then not only the
 * parse fails: the next regular expression V8 compiles at the bottom of that stack aborts the whole
 * process (an out-of-memory fatal error, not an exception). The Lexer is an iterative state machine.
 * The Parser keeps what it is building on its public `stack` (the document, each open collection, at
 * most a scalar and a block scalar on top), grows it by at most one entry per lexer token, and recurses
 * no deeper than that stack; so feeding it one token at a time and counting the open collections after
 * each refuses the text at the first level past the limit, having run at most MAX_YAML_DEPTH + 1
 * levels of recursion. The document composed from a text within the limit is at most twice as deep
 * plus one: a `key: value` inside a flow list is a mapping of its own, and a flow collection used as a
 * block mapping's key goes one level down when the parser wraps it.
 */
function parseCst(text: string, lines: LineCounter): { kind: "parsed"; tokens: CST.Token[] } | { kind: "refused"; problem: string; line: number } {
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0); // as Parser.parse does for the first line
  const tokens: CST.Token[] = [];
  for (const lexeme of new Lexer().lex(text)) {
    const offset = parser.offset;
    for (const token of parser.next(lexeme)) tokens.push(token);
    if (parser.stack.length > MAX_YAML_DEPTH && openCollections(parser.stack) > MAX_YAML_DEPTH) {
      return { kind: "refused", problem: TOO_DEEP, line: lines.linePos(offset).line };
    }
  }
  for (const token of parser.end()) tokens.push(token);
  return { kind: "parsed", tokens };
}

function openCollections(stack: readonly CST.Token[]): number {
  let count = 0;
  for (const token of stack) if (token.type === "block-map" || token.type === "block-seq" || token.type === "flow-collection") count += 1;
  return count;
}

/**
 * The first document of `tokens`, with an error when there are more, as `parseDocument` composes it;
 * its error messages are the library's own, without the position and excerpt `parseDocument` appends
 * (each problem carries its line and column).
 */
function composeFirst(tokens: readonly CST.Token[], length: number): Document {
  const composer = new Composer({ uniqueKeys: false, logLevel: "error" });
  let first: Document | undefined;
  for (const doc of composer.compose(tokens, true, length)) {
    if (first === undefined) first = doc;
    else {
      first.errors.push(new YAMLParseError([doc.range[0], doc.range[1]], "MULTIPLE_DOCS", "Source contains multiple documents"));
      break;
    }
  }
  // compose(…, forceDoc) yields a document for any text, an empty one included.
  return first ?? new Document();
}

type Frame = { node: unknown } | { anchored: Node; countBefore: number };
type Walked = { kind: "refused"; problem: string; offset?: number | undefined } | { kind: "walked"; duplicates: number[] };

/**
 * Every node once, iteratively (no depth limit of its own), in the order of the text, which is the
 * order the library resolves an alias in (the last node before it with that anchor). Stops at the
 * first bound passed. Duplicates: where each scalar key starts that repeats the value of an earlier
 * key of its mapping, as the library's own check compares keys.
 */
function walk(root: unknown): Walked {
  const duplicates: number[] = [];
  const anchors = new Map<string, Node>();
  const mappings: Array<ReadonlyArray<{ key: unknown }>> = [];
  /** The values of each anchored node whose subtree is done; one still open is an alias's own ancestor. */
  const sizes = new Map<Node, number>();
  let values = 0;
  let aliases = 0;
  const stack: Frame[] = [{ node: root }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    if ("anchored" in frame) {
      sizes.set(frame.anchored, values - frame.countBefore);
      continue;
    }
    const { node } = frame;
    if (!isNode(node)) continue;
    if (isAlias(node)) {
      aliases += 1;
      const target = anchors.get(node.source);
      const size = target === undefined ? 1 : sizes.get(target);
      if (size === undefined) return { kind: "refused", problem: `has an alias, \`*${node.source}\`, inside the value it names`, offset: node.range?.[0] };
      values += size;
    } else {
      values += 1;
      if (node.anchor !== undefined) {
        anchors.set(node.anchor, node);
        stack.push({ anchored: node, countBefore: values - 1 });
      }
    }
    if (values > MAX_YAML_VALUES) return { kind: "refused", problem: TOO_MANY_VALUES };
    if (aliases > MAX_YAML_ALIASES) return { kind: "refused", problem: TOO_MANY_ALIASES };
    // Checked once the walk is done: an alias key may name an anchor inside the same mapping's values.
    if (isMap(node)) mappings.push(node.items);
    if (isMap(node) || isSeq(node)) {
      for (let index = node.items.length - 1; index >= 0; index -= 1) {
        const item: unknown = node.items[index];
        if (isPair(item)) stack.push({ node: item.value }, { node: item.key });
        else stack.push({ node: item });
      }
    }
  }
  for (const items of mappings) duplicateKeys(items, duplicates, anchors);
  return { kind: "walked", duplicates: duplicates.sort((a, b) => a - b) };
}

/**
 * Adds to `offsets` where each key of `pairs` starts that repeats an earlier scalar key's value, a key
 * written as an alias (`*k :`) read as the scalar it names: skipped, it replaced an earlier key's value in silence.
 */
function duplicateKeys(pairs: ReadonlyArray<{ key: unknown }>, offsets: number[], anchors: ReadonlyMap<string, unknown>): void {
  const seen = new Set<unknown>();
  for (const { key } of pairs) {
    const named = isAlias(key) ? anchors.get(key.source) : key;
    if (!isScalar(named)) continue;
    if (seen.has(named.value)) offsets.push((key as Node).range?.[0] ?? 0);
    else seen.add(named.value);
  }
}

function firstLine(message: string): string {
  return message.split("\n")[0] ?? message;
}
