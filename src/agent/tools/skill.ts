import { z } from "zod";
import { defineTool, type Tool } from "./tool.js";

const inputSchema = z.object({
  skill: z.string().trim().min(1).describe("The skill's name, as listed above."),
  args: z.string().optional().describe("Arguments for the skill, as its instructions describe them."),
});

/** Skill, listing the repository's skills (by name) in its description. */
export function createSkillTool(skills: ReadonlyArray<{ name: string; description: string }>): Tool {
  return defineTool({
    name: "Skill",
    description: [
      "Loads one of the repository's skills: instructions (and sometimes tools) for a kind of task. Invoke one when the",
      "task matches its description, before doing that kind of work. Skills:",
      ...skills.map((skill) => `- ${skill.name}: ${skill.description}`),
    ].join("\n"),
    inputSchema,
    effects: { session: true },
    async execute(input, ctx) {
      if (ctx.skills === undefined) return { content: "This repository has no skills.", isError: true };
      return ctx.skills.invoke(input.skill, input.args);
    },
  });
}
