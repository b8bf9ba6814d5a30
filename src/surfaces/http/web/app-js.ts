/**
 * The page's script, part 1: token, API calls, the SSE connection, the threads list and the
 * composer. transcript-js.ts renders a thread's history and live events; question-js.ts holds the
 * inbox and the question form. All parts run in one scope (see index.ts). Plain browser JavaScript as a string so the bundle needs no asset loader.
 *
 * Page contract with the server:
 * - the token arrives in the URL fragment (`#token=…`, never sent to a server), is kept in
 *   sessionStorage and sent as `Authorization: Bearer`; EventSource gets it as `?token=`;
 * - the SSE stream is opened with `responder=web`, so while the page is open the threads can ask;
 * - after `gap`, or when a new EventSource replaces a failed one, state is refetched.
 * Data is rendered with textContent only, never as HTML.
 */
export const APP_JS = String.raw`
const $ = (id) => document.getElementById(id);
const S = {
  token: null,
  clientId: "web-" + Math.random().toString(36).slice(2, 10),
  threads: new Map(),
  current: null,
  questions: new Map(),
  settled: new Set(),
  skew: 0,
  lastSeq: null,
  es: null,
  loading: null,
  buffered: [],
};

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}
function shortId(id) { return id.length > 8 ? id.slice(-6) : id; }
function basename(p) { const parts = String(p).split(/[\\/]/).filter(Boolean); return parts[parts.length - 1] || p; }
function threadLabel(id) {
  const t = S.threads.get(id);
  const name = t ? (t.title || basename(t.cwd)) : "thread";
  return name + " · " + shortId(id);
}
function serverNow() { return Date.now() + S.skew; }
function showError(id, msg) { const e = $(id); e.textContent = msg || ""; e.hidden = !msg; }
function setConn(state, text) { const c = $("conn"); c.dataset.state = state; c.textContent = text; }

// ---- token and API -------------------------------------------------------------------------
function readToken() {
  const m = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem("tandem.token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
  return sessionStorage.getItem("tandem.token");
}
function showAuth(msg) {
  if (S.es) { S.es.close(); S.es = null; }
  $("app").hidden = true;
  $("auth").hidden = false;
  showError("auth-error", msg);
  setConn("offline", "not connected");
  $("auth-token").focus();
}
async function api(method, path, body) {
  const init = { method: method, headers: { authorization: "Bearer " + S.token } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (res.status === 401) showAuth("The server refused the token; paste the one tandem serve printed.");
  if (!res.ok) {
    const err = new Error(data && data.error ? data.error.message : "request failed (HTTP " + res.status + ")");
    err.status = res.status;
    err.code = data && data.error ? data.error.code : undefined;
    throw err;
  }
  return data;
}

// ---- event stream --------------------------------------------------------------------------
function connect() {
  if (S.es) S.es.close();
  setConn("connecting", "connecting…");
  let url = "/event?responder=web&token=" + encodeURIComponent(S.token);
  if (S.lastSeq !== null) url += "&since=" + S.lastSeq;
  const es = new EventSource(url);
  S.es = es;
  let fresh = true;
  es.addEventListener("ready", (m) => {
    const d = JSON.parse(m.data);
    S.skew = d.server_time - Date.now();
    setConn("live", "live");
    // A brand-new EventSource (first load, or after a failed one) starts from fetched state;
    // the browser's own reconnects resume with Last-Event-ID and need nothing.
    if (fresh) { fresh = false; refetch(); }
  });
  es.addEventListener("gap", () => refetch());
  es.onmessage = (m) => {
    let s;
    try { s = JSON.parse(m.data); } catch (e) { return; }
    S.lastSeq = s.seq;
    onEvent(s.event);
  };
  es.onerror = () => {
    if (es.readyState !== EventSource.CLOSED) { setConn("connecting", "reconnecting…"); return; }
    setConn("offline", "disconnected");
    if (S.es !== es) return;
    S.es = null;
    api("GET", "/thread?limit=1").then(() => setTimeout(connect, 1000), (e) => {
      if (e.status !== 401) setTimeout(connect, 3000);
    });
  };
}

async function refetch() {
  try {
    const [t, q] = await Promise.all([api("GET", "/thread"), api("GET", "/question")]);
    S.skew = q.server_time - Date.now();
    S.threads = new Map(t.threads.map((x) => [x.id, x]));
    S.questions = new Map();
    for (const r of q.questions) if (!S.settled.has(r.request_id)) S.questions.set(r.request_id, r);
    renderThreads();
    renderInbox();
    if (S.current) loadThread(S.current);
    autoOpen();
  } catch (e) {
    if (e.status !== 401) setConn("offline", "could not load: " + e.message);
  }
}

function onEvent(e) {
  switch (e.type) {
    case "thread.started":
      if (!S.threads.has(e.thread_id))
        S.threads.set(e.thread_id, { id: e.thread_id, cwd: e.cwd, model: e.model, mode: e.mode, title: "",
          status: "idle", loaded: true, active_turn_id: null, pending_questions: 0, created_at: Date.now(), updated_at: Date.now() });
      renderThreads();
      break;
    case "thread.status_changed": patchThread(e.thread_id, { status: e.status }); break;
    case "turn.started": patchThread(e.thread_id, { active_turn_id: e.turn_id }); break;
    case "turn.completed": patchThread(e.thread_id, { active_turn_id: null }); break;
    case "question.requested": addQuestion(e.request); break;
    case "question.deadline_changed": deadlineChanged(e.request_id, e.deadline); break;
    case "question.answered": case "question.declined": case "question.timed_out": case "question.cancelled":
      questionSettled(e);
      break;
  }
  if (e.thread_id && e.thread_id === S.current) {
    if (S.loading === e.thread_id) S.buffered.push(e);
    else renderEvent(e);
  }
}

function patchThread(id, patch) {
  const t = S.threads.get(id);
  if (!t) return;
  Object.assign(t, patch);
  renderThreads();
  if (id === S.current) renderHead();
}

// ---- threads -------------------------------------------------------------------------------
function renderThreads() {
  const ul = $("threads");
  ul.replaceChildren();
  const list = [...S.threads.values()].sort((a, b) => b.created_at - a.created_at);
  for (const t of list) {
    const li = el("li");
    li.tabIndex = 0;
    li.dataset.id = t.id;
    if (t.id === S.current) li.setAttribute("aria-current", "true");
    const title = el("div", "title");
    title.append(el("span", "", t.title || basename(t.cwd)));
    const st = el("span", "status", statusText(t));
    st.dataset.s = t.status;
    title.append(st);
    li.append(title, el("div", "sub", shortId(t.id) + " · " + t.model + " · " + t.mode + " mode"));
    li.onclick = () => selectThread(t.id);
    li.onkeydown = (ev) => { if (ev.key === "Enter") selectThread(t.id); };
    ul.append(li);
  }
  $("threads-empty").hidden = list.length > 0;
}
function statusText(t) {
  const n = [...S.questions.values()].filter((r) => r.thread_id === t.id).length;
  if (n) return n + " waiting";
  return { idle: "idle", running: "running", waiting_on_user: "waiting", failed: "failed", closed: "closed" }[t.status] || t.status;
}
function renderHead() {
  const t = S.threads.get(S.current);
  $("thread-title").textContent = t ? threadLabel(t.id) : "New thread";
  const st = $("thread-status");
  st.textContent = t ? statusText(t) : "";
  st.dataset.s = t ? t.status : "";
  st.hidden = !t;
  $("interrupt").hidden = !(t && t.active_turn_id);
  $("send").textContent = t && t.active_turn_id ? "Steer" : "Send";
}
function selectThread(id) {
  S.current = id;
  renderThreads();
  renderHead();
  $("transcript").replaceChildren();
  if (id) loadThread(id);
}
async function loadThread(id) {
  S.loading = id;
  S.buffered = [];
  try {
    const d = await api("GET", "/thread/" + encodeURIComponent(id));
    if (S.current !== id) return;
    S.threads.set(id, d.thread);
    for (const r of d.questions) if (!S.settled.has(r.request_id)) S.questions.set(r.request_id, r);
    renderHistory(d.items);
    renderThreads();
    renderHead();
    renderInbox();
  } catch (e) {
    showError("composer-error", "Could not load the thread: " + e.message);
  } finally {
    if (S.loading === id) {
      S.loading = null;
      const later = S.buffered.splice(0);
      for (const e of later) renderEvent(e);
    }
  }
}

// ---- composer ------------------------------------------------------------------------------
async function send() {
  const box = $("composer-text");
  const text = box.value.trim();
  if (!text) return;
  const mode = $("composer-mode").value;
  showError("composer-error", "");
  $("send").disabled = true;
  try {
    let id = S.current;
    if (!id) {
      const t = await api("POST", "/thread", { mode: mode });
      S.threads.set(t.id, t);
      selectThread(t.id);
      id = t.id;
    }
    const t = S.threads.get(id);
    if (t && t.active_turn_id) await api("POST", "/thread/" + encodeURIComponent(id) + "/steer", { text: text });
    else await api("POST", "/thread/" + encodeURIComponent(id) + "/turn", { text: text, options: { mode: mode } });
    box.value = "";
  } catch (e) {
    showError("composer-error", e.message);
  } finally {
    $("send").disabled = false;
  }
}

function start() {
  $("composer").addEventListener("submit", (ev) => { ev.preventDefault(); send(); });
  $("composer-text").addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) { ev.preventDefault(); send(); }
  });
  $("interrupt").onclick = () => {
    if (S.current) api("POST", "/thread/" + encodeURIComponent(S.current) + "/interrupt").catch((e) => showError("composer-error", e.message));
  };
  $("new-thread").onclick = () => { selectThread(null); $("composer-text").focus(); };
  $("auth").addEventListener("submit", (ev) => {
    ev.preventDefault();
    S.token = $("auth-token").value.trim();
    sessionStorage.setItem("tandem.token", S.token);
    boot();
  });
  setupQuestions();
  S.token = readToken();
  if (!S.token) showAuth("");
  else boot();
}
function boot() {
  $("auth").hidden = true;
  $("app").hidden = false;
  renderHead();
  connect();
}
document.addEventListener("DOMContentLoaded", start);
`;
