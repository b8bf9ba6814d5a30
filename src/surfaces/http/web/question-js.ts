/**
 * The page's script, part 2: the inbox of pending questions across threads and the question form
 * (SPEC Q7, Q13, Q16). Shares scope with part 1 (app-js.ts): `S`, `$`, `el`, `api`, ….
 *
 * Form behaviour:
 * - options as radios (single) or checkboxes (multi), an "Other" field where allowed, a note,
 *   masked input for secret questions;
 * - keyboard first: digits pick options of the current question, Enter moves to the next
 *   question and submits on the last, Esc declines; a confirm step when some are unanswered;
 * - typed questions (MCP elicitation, S6): boolean as Yes / No radios, number, email, url, date
 *   and datetime-local inputs (a date-time is sent as ISO UTC), defaults pre-filled, required
 *   ones marked "*" and checked before sending, optional ones skipped without a confirm; the
 *   server's validation message shows in the form's error line;
 * - a countdown from the request's deadline (server clock) for timeout policies; any
 *   interaction calls touch (at most every 2 s), which snoozes the deadline;
 * - when another surface settles the shown request, it says so and stops accepting input.
 *
 * A plain template literal: use String.raw (as app-js.ts does) if a backslash is ever needed here.
 */
export const QUESTION_JS = `
const Q = { req: null, cur: 0, lastTouch: 0, confirmAction: null, done: false, later: new Set() };
const TOUCH_EVERY_MS = 2000;

function responderBody() { return { kind: "web", id: S.clientId }; }
function fieldsets() { return [...$("q-list").querySelectorAll("fieldset.q")]; }
function fmtLeft(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const m = Math.floor(s / 60);
  return m + ":" + String(s % 60).padStart(2, "0");
}

// ---- inbox ---------------------------------------------------------------------------------
function addQuestion(r) {
  if (S.settled.has(r.request_id)) return;
  S.questions.set(r.request_id, r);
  renderInbox();
  renderThreads();
  if (r.thread_id === S.current) renderHead();
  autoOpen();
}
function deadlineChanged(id, deadline) {
  const r = S.questions.get(id);
  if (r) r.deadline = deadline;
  if (Q.req && Q.req.request_id === id) Q.req.deadline = deadline;
  tick();
}
function questionSettled(e) {
  S.settled.add(e.request_id);
  S.questions.delete(e.request_id);
  renderInbox();
  renderThreads();
  if (e.thread_id === S.current) renderHead();
  if (!Q.req || Q.req.request_id !== e.request_id) return;
  const by = e.responder;
  if (by && by.id === S.clientId) { closeQuestion(); autoOpen(); return; }
  settledElsewhere(e.type, e.outcome, by);
}
function renderInbox() {
  const ul = $("inbox");
  ul.replaceChildren();
  const list = [...S.questions.values()].sort((a, b) => Number(!!b.approval) - Number(!!a.approval) || a.created_at - b.created_at);
  for (const r of list) {
    const li = el("li");
    li.tabIndex = 0;
    li.dataset.id = r.request_id;
    const title = el("div", "title");
    title.append(el("span", "", r.questions.map((q) => q.header || q.id).join(" · ")));
    const left = el("span", "countdown left");
    left.dataset.deadline = r.deadline === null ? "" : String(r.deadline);
    title.append(left);
    li.append(title, el("div", "sub", r.questions[0].prompt), el("div", "sub", threadLabel(r.thread_id)));
    li.onclick = () => openQuestion(r.request_id);
    li.onkeydown = (ev) => { if (ev.key === "Enter") openQuestion(r.request_id); };
    ul.append(li);
  }
  const c = $("inbox-count");
  c.textContent = String(list.length);
  c.dataset.n = String(list.length);
  $("inbox-empty").hidden = list.length > 0;
  tick();
}
/** Opens the oldest pending question unless a form is open, it was put off, or the user is typing. */
function autoOpen() {
  if (Q.req) return;
  const typing = document.activeElement === $("composer-text") && $("composer-text").value !== "";
  if (typing) return;
  const next = [...S.questions.values()]
    .filter((r) => !Q.later.has(r.request_id))
    .sort((a, b) => Number(!!b.approval) - Number(!!a.approval) || a.created_at - b.created_at)[0];
  if (next) openQuestion(next.request_id);
}

// ---- the form ------------------------------------------------------------------------------
const INPUT_TYPES = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
/** What a typed answer must look like (the server checks it with the same rules). */
function typeHint(q) {
  const parts = [];
  if (q.kind === "number") {
    let t = q.integer ? "whole number" : "number";
    if (q.minimum !== undefined && q.maximum !== undefined) t += " from " + q.minimum + " to " + q.maximum;
    else if (q.minimum !== undefined) t += " ≥ " + q.minimum;
    else if (q.maximum !== undefined) t += " ≤ " + q.maximum;
    parts.push(t);
  }
  if (q.kind === "multi" && (q.min_items !== undefined || q.max_items !== undefined))
    parts.push("choose " + (q.min_items !== undefined ? q.min_items : 0) + "–" + (q.max_items !== undefined ? q.max_items : q.options.length));
  if (q.required === false) parts.push("optional");
  return parts.join("; ");
}
function buildQuestion(q, i) {
  const fs = el("fieldset", "q");
  fs.dataset.index = String(i);
  const legend = el("legend");
  if (q.header) legend.append(el("span", "q-tag", q.header));
  legend.append(document.createTextNode(q.prompt + (q.required === true ? " *" : "")));
  const hint = typeHint(q);
  if (hint) legend.append(el("span", "desc", " (" + hint + ")"));
  fs.append(legend);
  const d = q.default;
  const isDefault = (label) => Array.isArray(d) ? d.includes(label) : typeof d === "boolean" ? label === (d ? "Yes" : "No") : d === label;
  if (q.kind !== "text" && q.kind !== "number") {
    q.options.forEach((o, k) => {
      const lab = el("label", "opt");
      const inp = document.createElement("input");
      inp.type = q.kind === "multi" ? "checkbox" : "radio";
      inp.name = "q" + i;
      inp.value = o.label;
      inp.checked = d !== undefined && isDefault(o.label);
      lab.append(inp, el("span", "num", String(k + 1)), el("span", "label", o.label));
      if (o.description) lab.append(el("span", "desc", o.description));
      if (q.kind !== "multi") inp.addEventListener("change", () => { const other = fs.querySelector("input.other"); if (other) other.value = ""; });
      fs.append(lab);
    });
  }
  const free = q.kind === "text" || q.kind === "number";
  if (free || q.allow_other) {
    const f = el("label", "field", free ? (q.secret ? "Secret answer (hidden, never shown to the model)" : "Answer") : "Other");
    const inp = document.createElement("input");
    inp.type = q.secret ? "password" : q.kind === "number" ? "number" : (q.kind === "text" && INPUT_TYPES[q.format]) || "text";
    if (q.kind === "number") {
      inp.step = q.integer ? "1" : "any";
      if (q.minimum !== undefined) inp.min = String(q.minimum);
      if (q.maximum !== undefined) inp.max = String(q.maximum);
    }
    if (free && (typeof d === "string" || typeof d === "number")) inp.value = String(d);
    inp.className = "other";
    inp.autocomplete = q.secret ? "new-password" : "off";
    inp.spellcheck = false;
    inp.placeholder = free ? "Type your answer" : "Your own answer instead";
    if (q.kind === "single") inp.addEventListener("input", () => { if (inp.value) for (const r of fs.querySelectorAll("input[type=radio]")) r.checked = false; });
    f.append(inp);
    fs.append(f);
  }
  const nf = el("label", "field", "Note (optional)");
  const note = document.createElement("input");
  note.type = q.secret ? "password" : "text";
  note.className = "note";
  note.autocomplete = "off";
  nf.append(note);
  fs.append(nf);
  return fs;
}

function openQuestion(id) {
  const r = S.questions.get(id);
  if (!r) return;
  Q.req = r;
  Q.cur = 0;
  Q.done = false;
  Q.lastTouch = 0;
  Q.later.delete(id);
  // With no thread on screen, show the one that asks, so its transcript follows the answer.
  if (!S.current) selectThread(r.thread_id);
  const n = r.questions.length;
  $("q-title").textContent = n > 1 ? n + " questions" : r.questions[0].header || "Question";
  const asker = r.elicitation ? 'MCP server "' + r.elicitation.server + '" asks' : r.source === "internal" ? "Tandem asks" : "The agent asks";
  $("q-thread").textContent = asker + " · " + threadLabel(r.thread_id);
  const head = r.elicitation ? [el("p", "sub q-message", r.elicitation.message)] : [];
  $("q-list").replaceChildren(...head, ...r.questions.map(buildQuestion));
  $("q-banner").hidden = true;
  hideConfirm();
  showError("q-error", "");
  $("q-submit").hidden = false;
  $("q-decline").hidden = false;
  $("q-later").textContent = "Later";
  $("sheet").hidden = false;
  $("app").inert = true; // keyboard and screen readers stay in the dialog
  $("composer").dataset.locked = "1";
  focusQuestion(0);
  tick();
}
function closeQuestion() {
  Q.req = null;
  Q.done = false;
  $("sheet").hidden = true;
  $("app").inert = false;
  delete $("composer").dataset.locked;
  tick();
}
function focusQuestion(i) {
  const all = fieldsets();
  if (!all[i]) return;
  Q.cur = i;
  all.forEach((f, k) => { if (k === i) f.dataset.current = "1"; else delete f.dataset.current; });
  const target = all[i].querySelector("input:checked") || all[i].querySelector("input");
  if (target) target.focus();
}
function settledElsewhere(type, outcome, by) {
  Q.done = true;
  const who = by ? " by " + by.kind : "";
  const given = outcome && outcome.answers ? describeAnswers(outcome.answers) : "";
  const text = type === "question.answered" ? "Answered elsewhere" + who + (given ? ": " + given : ".")
    : type === "question.declined" ? "Declined elsewhere" + who + "."
    : type === "question.timed_out" ? "Timed out; the " + (outcome.policy && outcome.policy.on_timeout) + " policy answered for you."
    : "Cancelled" + (outcome && outcome.reason ? " (" + outcome.reason + ")" : "") + ".";
  const b = $("q-banner");
  b.textContent = text;
  b.hidden = false;
  for (const f of fieldsets()) f.disabled = true;
  hideConfirm();
  $("q-submit").hidden = true;
  $("q-decline").hidden = true;
  $("q-later").textContent = "Close";
  $("q-later").focus();
  tick();
}

function collect() {
  const answers = {};
  const unanswered = [];
  Q.req.questions.forEach((q, i) => {
    const fs = fieldsets()[i];
    const selected = [...fs.querySelectorAll("input[type=radio]:checked, input[type=checkbox]:checked")].map((x) => x.value);
    const o = fs.querySelector("input.other");
    let raw = o ? o.value : "";
    // datetime-local gives local time without a zone; the protocol wants RFC 3339.
    if (raw && q.format === "date-time" && o.type === "datetime-local" && !Number.isNaN(Date.parse(raw))) raw = new Date(raw).toISOString();
    const other = q.secret ? raw : raw.trim();
    const note = fs.querySelector("input.note").value.trim();
    if (!selected.length && other.trim() === "") { unanswered.push(q); return; }
    const a = { selected: selected };
    if (other.trim() !== "") a.other = other;
    if (note) a.note = note;
    answers[q.id] = a;
  });
  return { answers: answers, unanswered: unanswered };
}
function showConfirm(text, okLabel, action) {
  $("q-confirm-text").textContent = text;
  $("q-confirm-ok").textContent = okLabel;
  Q.confirmAction = action;
  $("q-confirm").hidden = false;
  $("q-confirm-ok").focus();
}
function hideConfirm() {
  Q.confirmAction = null;
  $("q-confirm").hidden = true;
}

async function submit(force) {
  if (!Q.req || Q.done) return;
  const r = Q.req;
  const c = collect();
  const missing = c.unanswered.find((q) => q.required === true && q.default === undefined);
  if (missing) {
    showError("q-error", '"' + (missing.header || missing.id) + '" is required');
    focusQuestion(r.questions.indexOf(missing));
    return;
  }
  const optional = c.unanswered.every((q) => q.required === false);
  if (Object.keys(c.answers).length === 0 && !optional) {
    showConfirm("Nothing is answered yet. Answer at least one question, or decline to let the agent go on without answers.", "Decline", () => decline());
    return;
  }
  if (c.unanswered.length && !force && !optional) {
    const names = c.unanswered.map((q) => q.header || q.id).join(", ");
    showConfirm(c.unanswered.length + " of " + r.questions.length + " unanswered (" + names + "). Submit anyway?", "Submit anyway", () => submit(true));
    return;
  }
  hideConfirm();
  await settle("/reply", { thread_id: r.thread_id, answers: c.answers, responder: responderBody() });
}
async function decline() {
  if (!Q.req || Q.done) return;
  hideConfirm();
  await settle("/reject", { thread_id: Q.req.thread_id, reason: "declined in the web page", responder: responderBody() });
}
async function settle(action, body) {
  const r = Q.req;
  $("q-submit").disabled = true;
  $("q-decline").disabled = true;
  try {
    await api("POST", "/question/" + encodeURIComponent(r.request_id) + action, body);
    S.settled.add(r.request_id);
    S.questions.delete(r.request_id);
    renderInbox();
    if (Q.req === r) closeQuestion();
    autoOpen();
  } catch (e) {
    if (Q.req !== r) return;
    if (e.status === 409 || e.status === 404) settledElsewhere("question.cancelled", { reason: e.message }, null);
    else showError("q-error", e.message);
  } finally {
    $("q-submit").disabled = false;
    $("q-decline").disabled = false;
  }
}

function touch() {
  const r = Q.req;
  if (!r || Q.done || r.policy.type !== "timeout") return;
  const now = Date.now();
  if (now - Q.lastTouch < TOUCH_EVERY_MS) return;
  Q.lastTouch = now;
  api("POST", "/question/" + encodeURIComponent(r.request_id) + "/touch", { responder: responderBody() })
    .then((d) => deadlineChanged(r.request_id, d.deadline), () => {});
}

function tick() {
  const cd = $("q-countdown");
  const r = Q.req;
  if (!r || Q.done || r.deadline === null || r.deadline === undefined) cd.hidden = true;
  else {
    // Never more than the policy allows: clock-skew estimates are only good to a few ms.
    const left = Math.min(r.policy.ms, r.deadline - serverNow());
    const then = { recommended: "picks the recommended option", empty: "goes on without an answer", decline: "declines" }[r.policy.on_timeout] || "times out";
    cd.textContent = fmtLeft(left) + " left, then " + then;
    if (left < 10000) cd.dataset.urgent = "1"; else delete cd.dataset.urgent;
    cd.hidden = false;
  }
  for (const span of $("inbox").querySelectorAll(".left")) {
    const d = Number(span.dataset.deadline);
    span.textContent = span.dataset.deadline ? fmtLeft(d - serverNow()) : "";
  }
}

function onKey(ev) {
  if (!Q.req) return;
  const t = ev.target;
  if (ev.key === "Escape") {
    ev.preventDefault();
    if (Q.confirmAction) hideConfirm();
    else if (Q.done) closeQuestion();
    else decline();
    return;
  }
  if (ev.key === "Enter" && !ev.shiftKey && !ev.isComposing) {
    if (t.tagName === "BUTTON") return;
    ev.preventDefault();
    if (Q.confirmAction) Q.confirmAction();
    else if (Q.done) closeQuestion();
    else if (Q.cur < Q.req.questions.length - 1) focusQuestion(Q.cur + 1);
    else submit(false);
    return;
  }
  const typing = t.tagName === "INPUT" && (t.type === "text" || t.type === "password");
  if (!typing && !Q.done && /^[1-9]$/.test(ev.key) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
    const fs = fieldsets()[Q.cur];
    const choice = fs && fs.querySelectorAll("input[type=radio], input[type=checkbox]")[Number(ev.key) - 1];
    if (!choice) return;
    ev.preventDefault();
    choice.checked = choice.type === "radio" ? true : !choice.checked;
    choice.dispatchEvent(new Event("change", { bubbles: true }));
    choice.focus();
  }
}

function setupQuestions() {
  const form = $("q-form");
  // The server validates every answer (typed ones too) and its message shows in #q-error, the
  // same text every surface gives; the browser's own bubbles would say something else.
  form.noValidate = true;
  form.addEventListener("submit", (ev) => { ev.preventDefault(); submit(false); });
  document.addEventListener("keydown", onKey);
  form.addEventListener("focusin", (ev) => {
    const fs = ev.target.closest && ev.target.closest("fieldset.q");
    if (fs && Number(fs.dataset.index) !== Q.cur) {
      Q.cur = Number(fs.dataset.index);
      fieldsets().forEach((f) => { if (f === fs) f.dataset.current = "1"; else delete f.dataset.current; });
    }
  });
  for (const type of ["input", "change", "keydown", "pointerdown"]) form.addEventListener(type, touch);
  $("q-decline").onclick = () => decline();
  $("q-later").onclick = () => { if (Q.req && !Q.done) Q.later.add(Q.req.request_id); closeQuestion(); };
  $("q-confirm-back").onclick = () => { hideConfirm(); focusQuestion(Q.cur); };
  $("q-confirm-ok").onclick = () => { if (Q.confirmAction) Q.confirmAction(); };
  setInterval(tick, 500);
}
`;
