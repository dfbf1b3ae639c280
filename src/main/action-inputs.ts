// The step's inputs (action.yml), read the toolkit's way: GitHub hands each declared input to the
// action as INPUT_<NAME>, set to its default or "" when the workflow leaves it out.
import * as core from "@actions/core";
import { TackleError } from "../errors/index.js";

export interface ActionInputs {
  /** `anthropic_api_key`; undefined when empty (a fork's run gets no secrets). */
  anthropicApiKey: string | undefined;
  /** `github_token`; action.yml defaults it to `${{ github.token }}`. */
  githubToken: string | undefined;
  /** `model`; undefined means TACKLE_MODEL, else the default model. */
  model: string | undefined;
  /** `allow_unsandboxed`. @defaultValue false */
  allowUnsandboxed: boolean;
}

const nonEmpty = (name: string): string | undefined => core.getInput(name) || undefined;

/** Reads every input at once; a malformed one is an error naming the input and what it accepts. */
export function readActionInputs(): ActionInputs {
  return {
    anthropicApiKey: nonEmpty("anthropic_api_key"),
    githubToken: nonEmpty("github_token"),
    model: nonEmpty("model"),
    allowUnsandboxed: booleanInput("allow_unsandboxed", false),
  };
}

/**
 * The toolkit's booleans (YAML 1.2 core schema: true/True/TRUE, false/False/FALSE), with a default for
 * an empty value, which `core.getBooleanInput` refuses: the step may run without the runner's defaults.
 */
function booleanInput(name: string, fallback: boolean): boolean {
  const value = core.getInput(name);
  if (value === "") return fallback;
  if (["true", "True", "TRUE"].includes(value)) return true;
  if (["false", "False", "FALSE"].includes(value)) return false;
  throw new TackleError("env_invalid", `the \`${name}\` input must be true or false, not '${value}'`);
}
