/** The longest matcher a repository may write; tool names are short, and so should their patterns be. */
const MAX_MATCHER_CHARS = 500;

export type CompiledHookMatcher = { ok: true; regex: RegExp } | { ok: false; problem: string };

/**
 * A hook's `matcher` as a regular expression over the whole tool name (`Edit|Write` matches `Edit`,
 * never `NotEdit`): anchored at both ends, so a bare name cannot match a longer one by accident. An
 * empty matcher matches every tool.
 */
export function compileHookMatcher(matcher: string): CompiledHookMatcher {
  if (matcher.length > MAX_MATCHER_CHARS) return { ok: false, problem: `longer than ${MAX_MATCHER_CHARS} characters` };
  try {
    return { ok: true, regex: new RegExp(`^(?:${matcher === "" ? ".*" : matcher})$`) };
  } catch (error) {
    return { ok: false, problem: `not a regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
}
