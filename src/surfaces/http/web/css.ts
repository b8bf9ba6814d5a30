/**
 * The page's stylesheet: system fonts, light/dark from the OS, one breakpoint for phones
 * (single column, question sheet full screen, 44 px tap targets). No external assets.
 */
export const PAGE_CSS = `
:root {
  --bg: #f6f7f9; --panel: #ffffff; --text: #1c1f24; --muted: #667085; --line: #e3e6eb;
  --accent: #2f6fed; --accent-text: #ffffff; --warn: #b54708; --danger: #c4320a; --ok: #067647;
  --user: #eef3ff; --code: #f2f4f7; --radius: 10px;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #101317; --panel: #181c22; --text: #e6e8eb; --muted: #98a2b3; --line: #2b313a;
    --accent: #5b8def; --user: #1d2737; --code: #0f1216; --warn: #f79009; --danger: #f97066; --ok: #47cd89;
  }
}
* { box-sizing: border-box; -webkit-tap-highlight-color: transparent; }
[hidden] { display: none !important; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--text); }
body { display: flex; flex-direction: column; }
h1 { font-size: 17px; margin: 0; letter-spacing: .2px; }
h2 { font-size: 13px; text-transform: uppercase; letter-spacing: .6px; color: var(--muted); margin: 0 0 8px;
  display: flex; align-items: center; gap: 8px; }
code, pre, kbd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
kbd { border: 1px solid currentColor; border-radius: 4px; padding: 0 4px; opacity: .7; font-size: 11px; }
button, select, input, textarea { font: inherit; color: inherit; }
button { background: var(--accent); color: var(--accent-text); border: 0; border-radius: 8px;
  padding: 8px 14px; min-height: 38px; cursor: pointer; font-weight: 600; }
button.secondary { background: transparent; color: var(--text); border: 1px solid var(--line); font-weight: 500; }
button.danger { color: var(--danger); }
button.small { min-height: 26px; padding: 2px 10px; font-size: 13px; }
button:disabled { opacity: .5; cursor: default; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, li:focus-visible {
  outline: 2px solid var(--accent); outline-offset: 2px; }
input[type=text], input[type=password], textarea, select { background: var(--panel); border: 1px solid var(--line);
  border-radius: 8px; padding: 8px 10px; min-height: 38px; width: 100%; }
select { width: auto; }
.row { display: flex; gap: 8px; align-items: center; }
.grow { flex: 1; }
.muted { color: var(--muted); margin: 0; font-size: 13px; }
.error { color: var(--danger); margin: 6px 0 0; font-size: 14px; }
.empty { color: var(--muted); font-size: 14px; margin: 4px 2px; }

.bar { display: flex; align-items: center; justify-content: space-between; padding: 10px 16px;
  background: var(--panel); border-bottom: 1px solid var(--line); }
.conn { font-size: 13px; color: var(--muted); }
.conn::before { content: ""; display: inline-block; width: 8px; height: 8px; border-radius: 50%;
  margin-right: 6px; background: var(--warn); vertical-align: 1px; }
.conn[data-state=live]::before { background: var(--ok); }
.conn[data-state=offline]::before { background: var(--danger); }

.auth { max-width: 480px; margin: 48px auto; padding: 20px; background: var(--panel);
  border: 1px solid var(--line); border-radius: var(--radius); display: grid; gap: 10px; }

.layout { flex: 1; display: grid; grid-template-columns: minmax(260px, 340px) 1fr; min-height: 0; }
.side { border-right: 1px solid var(--line); overflow: auto; padding: 14px; display: grid; gap: 18px; align-content: start; }
.list { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
.list li { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius);
  padding: 9px 11px; cursor: pointer; min-height: 44px; }
.list li:hover { border-color: var(--accent); }
.list li[aria-current=true] { border-color: var(--accent); box-shadow: inset 3px 0 0 var(--accent); }
.list .title { font-weight: 600; display: flex; gap: 6px; align-items: baseline; justify-content: space-between; }
.list .sub { color: var(--muted); font-size: 13px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.count { background: var(--line); color: var(--text); border-radius: 999px; padding: 0 8px; font-size: 12px; }
.count:not([data-n="0"]) { background: var(--warn); color: #fff; }
.status { font-size: 12px; border-radius: 999px; padding: 1px 8px; border: 1px solid var(--line); color: var(--muted);
  white-space: nowrap; font-weight: 500; }
.status[data-s=running] { color: var(--accent); border-color: var(--accent); }
.status[data-s=waiting_on_user] { color: var(--warn); border-color: var(--warn); }
.status[data-s=failed] { color: var(--danger); border-color: var(--danger); }
.inbox li { border-left: 3px solid var(--warn); }

.thread { display: flex; flex-direction: column; min-height: 0; min-width: 0; }
.thread-head { display: flex; align-items: center; gap: 10px; padding: 12px 18px; border-bottom: 1px solid var(--line); }
.thread-head h2 { margin: 0; text-transform: none; letter-spacing: 0; font-size: 15px; color: var(--text); }
.transcript { flex: 1; overflow: auto; list-style: none; margin: 0; padding: 16px 18px; display: flex;
  flex-direction: column; gap: 10px; }
.entry { max-width: 860px; }
.entry .who { font-size: 12px; color: var(--muted); margin-bottom: 2px; }
.entry .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.entry.user .text { background: var(--user); border-radius: var(--radius); padding: 8px 12px; display: inline-block; }
.entry.reasoning .text { color: var(--muted); font-style: italic; }
.entry.error .text { color: var(--danger); }
.entry.turn { color: var(--muted); font-size: 12px; border-top: 1px dashed var(--line); padding-top: 6px; }
.entry.command pre, .entry.tool pre { background: var(--code); border: 1px solid var(--line); border-radius: 8px;
  padding: 8px 10px; margin: 4px 0 0; max-height: 260px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
.entry .cmd { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; font-weight: 600; }
.entry .exit { font-size: 12px; color: var(--muted); margin-left: 6px; }
.entry .exit[data-bad] { color: var(--danger); }

.composer { border-top: 1px solid var(--line); padding: 10px 18px 14px; display: grid; gap: 8px; background: var(--panel); }
.composer textarea { resize: vertical; min-height: 44px; }
.composer[data-locked] { opacity: .55; pointer-events: none; }

.sheet { position: fixed; inset: 0; background: rgba(10, 12, 16, .45); display: flex; align-items: center;
  justify-content: center; padding: 16px; z-index: 10; }
.sheet-body { background: var(--panel); border-radius: 14px; width: min(640px, 100%); max-height: 100%; overflow: auto;
  padding: 18px 20px; box-shadow: 0 20px 50px rgba(0,0,0,.3); display: grid; gap: 10px; }
.q-head { display: flex; align-items: center; justify-content: space-between; gap: 10px; }
.q-head h2 { margin: 0; }
.countdown { font-variant-numeric: tabular-nums; font-size: 13px; color: var(--warn); font-weight: 600; }
.countdown[data-urgent] { color: var(--danger); }
.banner { background: var(--user); border-radius: 8px; padding: 10px 12px; margin: 0; font-weight: 600; }
fieldset.q { border: 1px solid var(--line); border-radius: var(--radius); padding: 12px 14px; margin: 0 0 10px;
  display: grid; gap: 8px; }
fieldset.q[data-current] { border-color: var(--accent); }
fieldset.q legend { padding: 0 4px; font-weight: 600; }
.q-tag { font-size: 12px; color: var(--muted); text-transform: uppercase; letter-spacing: .5px; margin-right: 6px; }
.opt { display: grid; grid-template-columns: auto auto 1fr; gap: 2px 10px; align-items: start; padding: 9px 10px;
  border: 1px solid var(--line); border-radius: 8px; cursor: pointer; min-height: 44px; }
.opt:has(input:checked) { border-color: var(--accent); background: var(--user); }
.opt input { margin: 3px 0 0; width: 18px; height: 18px; }
.opt .num { font-family: ui-monospace, monospace; color: var(--muted); font-size: 13px; padding-top: 1px; }
.opt .desc { grid-column: 3; color: var(--muted); font-size: 13px; }
.field { display: grid; gap: 4px; font-size: 13px; color: var(--muted); }
.confirm { border: 1px solid var(--warn); border-radius: 8px; padding: 10px 12px; }
.confirm p { margin: 0 0 8px; }
.q-actions { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
.hint { color: var(--muted); font-size: 12px; margin: 0; }
fieldset:disabled { opacity: .6; }

@media (max-width: 720px) {
  :root { font-size: 16px; }
  .layout { grid-template-columns: 1fr; grid-template-rows: auto 1fr; }
  .side { border-right: 0; border-bottom: 1px solid var(--line); max-height: 42vh; padding: 10px 12px; }
  .thread-head, .transcript, .composer { padding-left: 12px; padding-right: 12px; }
  .sheet { padding: 0; align-items: stretch; }
  .sheet-body { border-radius: 0; width: 100%; height: 100%; max-height: none; align-content: start;
    padding-bottom: calc(16px + env(safe-area-inset-bottom)); }
  button { min-height: 44px; }
  .q-actions button { flex: 1; }
  .q-actions .grow, .hint, kbd { display: none; }
  input[type=text], input[type=password], textarea, select { min-height: 44px; font-size: 16px; }
}
`;
