import { formatCost, formatTokens, html, SafeHtml } from "./html.js";

/**
 * One piece of the timeline: markup appended to the element whose id is `target`. A piece with an
 * `id` is itself a container (a tool call, a subagent) that later pieces go into, between its `open`
 * and `close`. The page renders the tree; the live page appends each piece as it comes.
 */
export interface Piece {
  target: string;
  open: string;
  close: string;
  id?: string;
}

/** The timeline's root element. */
export const TIMELINE_ROOT = "tl:main";

/** Results longer than this start folded. */
const OPEN_RESULT_CHARS = 400;

type Block = { type?: string; text?: string; thinking?: string; name?: string; id?: string; input?: unknown };

/**
 * Turns transcript lines (docs/transcript-format.md) into pieces, in order: messages, tool calls
 * with their results, subagents nested inside the Task call that started them (their `agent` key is
 * that call's place, `main/2/1`), policy questions with their answers, and how each agent ended.
 * Every text goes through `html`, so the transcript cannot add markup.
 */
export function createTimeline(): { add(line: string): Piece[] } {
  const callOf = new Map<string, string>();
  const agents = new Set<string>(["main"]);
  const prompted = new Set<string>();
  // A retried job appends a second run: its ids carry the run's number so they stay unique.
  let runs = 0;
  const agentId = (agent: string): string => (agent === "main" && runs <= 1 ? TIMELINE_ROOT : `tl:${runs}:${agent}`);
  const callId = (key: string): string => `call:${runs}:${key}`;

  const leaf = (target: string, markup: SafeHtml): Piece => ({ target, open: markup.value, close: "" });

  /** Where an agent's pieces go: its container, created inside its Task call the first time. */
  const into = (agent: string, pieces: Piece[]): string => {
    if (!agents.has(agent)) {
      agents.add(agent);
      const parent = agent.split("/").slice(0, -2).join("/") || "main";
      const target = callOf.has(`key:${agent}`) ? callId(agent) : agentId(parent);
      pieces.push({
        target,
        id: agentId(agent),
        open: html`<div class="agent" id="${agentId(agent)}"><div class="agent-head">Subagent ${agent}</div>`.value,
        close: "</div>",
      });
    }
    return agentId(agent);
  };

  return {
    add(raw) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return [];
      }
      const pieces: Piece[] = [];
      const agent = typeof line.agent === "string" ? line.agent : "main";
      const turn = typeof line.turn === "number" ? line.turn : 0;
      switch (line.type) {
        case "meta": {
          runs++;
          callOf.clear();
          prompted.clear();
          agents.clear();
          agents.add("main");
          pieces.push(
            leaf(
              TIMELINE_ROOT,
              html`<div class="event meta">${runs > 1 ? `Run ${runs}` : "Run"} started · model ${String(line.model ?? "?")} · ${String(line.startedAt ?? "")}</div>`,
            ),
          );
          if (runs > 1)
            pieces.push({ target: TIMELINE_ROOT, id: agentId("main"), open: html`<div class="agent run" id="${agentId("main")}">`.value, close: "</div>" });
          break;
        }
        case "request": {
          const target = into(agent, pieces);
          if (line.purpose !== "turn" || prompted.has(agent)) break;
          prompted.add(agent);
          const body = (line.body ?? {}) as { messages?: Array<{ role?: string; content?: unknown }> };
          const text = (body.messages ?? [])
            .filter((m) => m.role === "user")
            .map((m) => textOf(m.content))
            .join("\n\n");
          const label = agent === "main" ? "Task given to the agent" : "Prompt given to the subagent";
          pieces.push(leaf(target, html`<details class="event prompt"><summary>${label}</summary><pre>${text}</pre></details>`));
          break;
        }
        case "response": {
          const target = into(agent, pieces);
          const message = (line.message ?? {}) as { content?: Block[]; usage?: Record<string, number> };
          if (line.purpose === "compaction") {
            pieces.push(
              leaf(target, html`<details class="event note"><summary>Older turns compacted</summary><pre>${textOf(message.content)}</pre></details>`),
            );
            break;
          }
          if (line.purpose === "web_fetch") {
            pieces.push(leaf(target, html`<details class="event note"><summary>WebFetch's answer</summary><pre>${textOf(message.content)}</pre></details>`));
            break;
          }
          let n = 0;
          for (const block of message.content ?? []) {
            if (block.type === "text" && block.text) {
              pieces.push(
                leaf(target, html`<div class="event message"><div class="who">${agent} · turn ${turn}</div><div class="text">${block.text}</div></div>`),
              );
            } else if (block.type === "thinking" && block.thinking) {
              pieces.push(leaf(target, html`<details class="event thinking"><summary>Thinking</summary><pre>${block.thinking}</pre></details>`));
            } else if (block.type === "tool_use") {
              n++;
              const key = `${agent}/${turn}/${n}`;
              if (block.id) callOf.set(block.id, key);
              callOf.set(`key:${key}`, key);
              pieces.push({
                target,
                id: callId(key),
                open: html`<div class="event call" id="${callId(key)}"><div class="call-head"><span class="tool">${block.name ?? "?"}</span> <span class="summary">${summarize(block.input)}</span></div><details><summary>Input</summary><pre>${JSON.stringify(block.input, null, 2)}</pre></details>`
                  .value,
                close: "</div>",
              });
            }
          }
          const usage = message.usage;
          if (usage !== undefined) {
            const input = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
            pieces.push(leaf(target, html`<div class="usage">${formatTokens(input)} in · ${formatTokens(usage.output_tokens)} out</div>`));
          }
          break;
        }
        case "tool_results": {
          const fallback = into(agent, pieces);
          for (const result of (line.results ?? []) as Array<{ tool_use_id?: string; content?: unknown; is_error?: boolean }>) {
            const key = result.tool_use_id === undefined ? undefined : callOf.get(result.tool_use_id);
            const content = typeof result.content === "string" ? result.content : JSON.stringify(result.content);
            const policy = /^(Denied|Not approved)\b/.test(content);
            const kind = policy ? "result policy" : result.is_error ? "result error" : "result ok";
            const label = policy ? "Refused by policy" : result.is_error ? "Error" : "Result";
            const open = content.length <= OPEN_RESULT_CHARS;
            pieces.push(
              leaf(
                key === undefined ? fallback : callId(key),
                html`<details class="${kind}"${open ? new SafeHtml(" open") : ""}><summary>${label} · ${content.length} chars</summary><pre>${content}</pre></details>`,
              ),
            );
          }
          break;
        }
        case "approval": {
          const call = typeof line.call === "string" ? line.call : undefined;
          const target = call !== undefined && callOf.has(`key:${call}`) ? callId(call) : into(agent, pieces);
          const answer = line.approved === true ? "approved" : "denied";
          const by = typeof line.by === "string" ? ` by @${line.by}` : "";
          pieces.push(
            leaf(
              target,
              html`<div class="event approval ${answer}">Policy question: may ${String(line.tool ?? "?")} run? (${String(line.reason ?? "")}) → ${answer}${by}${typeof line.message === "string" ? ` — ${line.message}` : ""}</div>`,
            ),
          );
          break;
        }
        case "end": {
          const target = into(agent, pieces);
          const turns = typeof line.turns === "number" ? line.turns : 0;
          const cost = typeof line.costUsd === "number" ? line.costUsd : undefined;
          pieces.push(
            leaf(
              target,
              html`<div class="event end"><strong>${agent === "main" ? "Agent" : "Subagent"} ended: ${String(line.reason ?? "?")}</strong> · ${String(line.message ?? "")} · ${turns} turns · ${formatCost(cost)}</div>`,
            ),
          );
          break;
        }
        case "cut":
          pieces.push(leaf(TIMELINE_ROOT, html`<div class="event note">${String(line.reason ?? "The transcript was cut here.")}</div>`));
          break;
      }
      return pieces;
    },
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: Block & { content?: unknown }) => (block.type === "text" ? (block.text ?? "") : block.type === "tool_result" ? textOf(block.content) : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** The call's gist in one line: its path, command, pattern or first field. */
function summarize(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields = input as Record<string, unknown>;
  const first = ["file_path", "command", "pattern", "description", "summary", "message", "url", "skill", "tool"].find(
    (name) => typeof fields[name] === "string",
  );
  const text = first === undefined ? "" : String(fields[first]);
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 100 ? `${flat.slice(0, 99)}…` : flat;
}

/** The pieces as one tree of markup (the page's first render). */
export function renderPieces(pieces: readonly Piece[]): string {
  const children = new Map<string, Piece[]>();
  for (const piece of pieces) {
    const list = children.get(piece.target) ?? [];
    list.push(piece);
    children.set(piece.target, list);
  }
  const seen = new Set<string>();
  const serialize = (target: string): string =>
    (children.get(target) ?? [])
      .map((piece) => {
        if (piece.id === undefined || seen.has(piece.id)) return piece.open + piece.close;
        seen.add(piece.id);
        return piece.open + serialize(piece.id) + piece.close;
      })
      .join("");
  return serialize(TIMELINE_ROOT);
}
