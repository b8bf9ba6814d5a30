/**
 * The page's script: the transcript of the selected thread, from its stored history items
 * (`GET /thread/:id`) and then from live events (deltas, commands with output, turn status).
 * Entries are keyed by item id (call id for tool calls), so a live event updates the entry the
 * history drew. Shares scope with app-js.ts (`$`, `el`, `S`). Text only, never HTML.
 */
export const TRANSCRIPT_JS = String.raw`
// ---- transcript ----------------------------------------------------------------------------
function nearBottom() { const t = $("transcript"); return t.scrollHeight - t.scrollTop - t.clientHeight < 80; }
function stick(was) { if (was) { const t = $("transcript"); t.scrollTop = t.scrollHeight; } }
function entry(kind, who, id) {
  const sel = id ? '[data-id="' + CSS.escape(id) + '"]' : null;
  let li = sel ? $("transcript").querySelector(sel) : null;
  if (!li) {
    li = el("li", "entry " + kind);
    if (id) li.dataset.id = id;
    li.append(el("div", "who", who), el("div", "text", ""));
    $("transcript").append(li);
  }
  return li;
}
function textOf(content) {
  return (content || []).map((c) => (c.type === "input_image" ? "[image]" : c.text)).join("");
}
function outputText(o) { return typeof o === "string" ? o : JSON.stringify(o); }
function commandEntry(id, command, output, exitCode, status) {
  const li = entry("command", "command", id);
  const box = li.querySelector(".text");
  if (!box.firstChild) box.append(el("span", "cmd"), el("span", "exit"), el("pre"));
  box.querySelector(".cmd").textContent = "$ " + command;
  const ex = box.querySelector(".exit");
  ex.textContent = status === "in_progress" ? "running…" : exitCode === null || exitCode === undefined ? status : "exit " + exitCode;
  if (exitCode) ex.dataset.bad = "1"; else delete ex.dataset.bad;
  const pre = box.querySelector("pre");
  if (output !== undefined) pre.textContent = output;
  pre.hidden = pre.textContent === "";
  return li;
}
function toolEntry(id, tool, args, output) {
  const li = entry("tool", tool === "request_user_input" ? "question" : "tool · " + tool, id);
  const box = li.querySelector(".text");
  if (!box.firstChild) box.append(el("div", "args"), el("pre"));
  let summary = args;
  try {
    const a = JSON.parse(args);
    if (tool === "request_user_input" && a && Array.isArray(a.questions))
      summary = "Asked: " + a.questions.map((q) => q.header || q.id).join(", ");
  } catch (e) { summary = args; }
  box.querySelector(".args").textContent = summary.length > 400 ? summary.slice(0, 400) + "…" : summary;
  const pre = box.querySelector("pre");
  if (output !== undefined) pre.textContent = tool === "request_user_input" ? questionResult(output) : output;
  pre.hidden = pre.textContent === "";
  return li;
}
function execOutput(o) {
  const t = outputText(o);
  const m = /(?:^|\n)Output:\n?/.exec(t);
  return m ? t.slice(m.index + m[0].length) : t;
}
/** "stack: Rust (note: …) · name: my-app" for answers keyed by question id. */
function describeAnswers(answers) {
  return Object.keys(answers || {}).map((id) => {
    const a = answers[id];
    const parts = (a.selected || []).slice();
    if (a.other !== undefined) parts.push(a.other);
    return id + ": " + parts.join(", ") + (a.note ? " (note: " + a.note + ")" : "");
  }).join(" · ");
}
/** The model-facing result of request_user_input, as one readable line. */
function questionResult(text) {
  let r;
  try { r = JSON.parse(text); } catch (e) { return text; }
  if (!r || typeof r.status !== "string") return text;
  const rest = r.unanswered && r.unanswered.length ? " · unanswered: " + r.unanswered.join(", ") : "";
  const answers = describeAnswers(r.answers);
  return r.status + (answers ? " · " + answers : "") + rest;
}
function execExit(o) { const m = /Process exited with code (\d+)/.exec(outputText(o)); return m ? Number(m[1]) : null; }

function renderHistory(items) {
  $("transcript").replaceChildren();
  const outputs = new Map();
  for (const it of items) if (it.type === "function_call_output" || it.type === "custom_tool_call_output") outputs.set(it.call_id, it.output);
  let n = 0;
  for (const it of items) {
    n++;
    if (it.type === "message") {
      const text = textOf(it.content);
      if (it.role === "user") {
        if (text.startsWith("<environment_context>") || text.startsWith("# AGENTS.md instructions")) continue;
        entry("user", "you", it.id || "h_" + n).querySelector(".text").textContent = text;
      } else if (it.role === "assistant") {
        entry("agent", "agent", it.id || "h_" + n).querySelector(".text").textContent = text;
      }
    } else if (it.type === "reasoning") {
      const text = (it.summary || []).map((s) => s.text).join("\n\n");
      if (text) entry("reasoning", "thinking", it.id || "h_" + n).querySelector(".text").textContent = text;
    } else if (it.type === "function_call" && it.name === "exec_command") {
      let cmd = "";
      try { cmd = JSON.parse(it.arguments).cmd || ""; } catch (e) { cmd = it.arguments; }
      const out = outputs.get(it.call_id);
      commandEntry(it.call_id, cmd, out === undefined ? "" : execOutput(out), out === undefined ? null : execExit(out), out === undefined ? "in_progress" : "completed");
    } else if (it.type === "function_call" || it.type === "custom_tool_call") {
      const out = outputs.get(it.call_id);
      toolEntry(it.call_id, it.name, it.type === "function_call" ? it.arguments : it.input, out === undefined ? undefined : outputText(out));
    }
  }
  stick(true);
}

function renderItem(item) {
  switch (item.type) {
    case "user_message": entry("user", "you", item.id).querySelector(".text").textContent = item.text; break;
    case "agent_message": entry("agent", "agent", item.id).querySelector(".text").textContent = item.text; break;
    case "reasoning": entry("reasoning", "thinking", item.id).querySelector(".text").textContent = item.text; break;
    case "command_execution": commandEntry(item.id, item.command, item.aggregated_output, item.exit_code, item.status); break;
    case "tool_call": toolEntry(item.id, item.tool, item.arguments, item.output); break;
    case "error": entry("error", "error", item.id).querySelector(".text").textContent = item.message; break;
    case "file_change": {
      const tags = { add: "A", update: "M", delete: "D", move: "R" };
      const lines = item.changes.map((c) => (tags[c.kind] || "M") + " " + c.path + (c.move_path ? " → " + c.move_path : ""));
      if (item.error) lines.push(item.error);
      const li = entry(item.status === "completed" ? "tool" : "error", "apply_patch · " + item.status, item.id);
      li.querySelector(".text").textContent = lines.join("\n");
      if (item.status !== "completed") li.classList.add("error");
      break;
    }
  }
}

function renderEvent(e) {
  const was = nearBottom();
  switch (e.type) {
    case "item.started": case "item.updated": case "item.completed": renderItem(e.item); break;
    case "agent_message.delta": entry("agent", "agent", e.item_id).querySelector(".text").append(e.delta); break;
    case "reasoning.delta": entry("reasoning", "thinking", e.item_id).querySelector(".text").append(e.delta); break;
    case "exec.output_delta": {
      const pre = commandEntry(e.item_id, "", undefined, null, "in_progress").querySelector("pre");
      pre.append(e.chunk);
      pre.hidden = false;
      break;
    }
    case "input.queued": entry("user", "you (queued)", e.input_id).querySelector(".text").textContent = e.text; break;
    case "turn.started": entry("turn", "", "start_" + e.turn_id).querySelector(".text").textContent = "turn started · " + e.mode + " mode"; break;
    case "turn.completed": {
      const li = entry("turn", "", "end_" + e.turn_id);
      li.querySelector(".text").textContent = "turn " + e.status + (e.error ? ": " + e.error.message : "");
      if (e.status === "failed") li.classList.add("error");
      break;
    }
    case "error":
      if (!e.will_retry) entry("error", "error").querySelector(".text").textContent = e.error.message;
      break;
  }
  stick(was);
}

`;
