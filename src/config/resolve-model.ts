/** The operator's model settings (TACKLE_MODEL, TACKLE_ALLOWED_MODELS), as `loadEnv` returns them. */
export interface ModelSettings {
  model: string;
  allowedModels: readonly string[];
}

export type ModelChoice = { ok: true; model: string } | { ok: false; problem: string };

/**
 * The model a job uses: the repo config's `model` when the operator allows it (the operator pays),
 * else the operator's default. A model outside the allowed list is a config problem, reported like
 * the others rather than silently replaced.
 */
export function resolveModel(requested: string | undefined, env: ModelSettings): ModelChoice {
  if (requested === undefined || requested.trim() === "") return { ok: true, model: env.model };
  const wanted = requested.trim();
  if (wanted === env.model || env.allowedModels.includes(wanted)) return { ok: true, model: wanted };
  const allowed = [...new Set([env.model, ...env.allowedModels])].map((model) => `\`${model}\``).join(", ");
  return {
    ok: false,
    problem: `\`model\`: \`${wanted}\` is not allowed on this Tackle installation; allowed: ${allowed}`,
  };
}

/**
 * A repository's agents (`.tackle/agents/*.md`) may name a model only within the operator's allowed
 * models, as the repo config may: one problem per agent that names another.
 */
export function disallowedAgentModels(agents: readonly { path: string; model?: string | undefined }[], env: ModelSettings): string[] {
  return agents.flatMap((agent) => {
    if (agent.model === undefined) return [];
    const choice = resolveModel(agent.model, env);
    return choice.ok ? [] : [`${agent.path}: ${choice.problem}`];
  });
}
