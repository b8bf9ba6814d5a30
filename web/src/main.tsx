/**
 * The web app of `tandem serve` (requirements S4, Q13, Q16, A3): asks for the token when it has none,
 * then lays out the side panel (inbox, threads), the thread pane and the question sheet. On a
 * phone (narrow screens) the side panel is a drawer, the transcript owns the screen and the
 * inbox is one tap away in the top bar (Esc closes the drawer). While the sheet is open the rest
 * of the page is inert, so keyboard and screen-reader focus stays in the dialog.
 *
 * Links: a deep link (`#token=…&thread=…&question=…`, src/util/deep-link.ts) is read at load and
 * whenever the fragment changes (a new token pasted into the tab connects without a reload); a
 * notification's click (notify.ts) opens its question the same way.
 */
import { useEffect, useRef } from "react";
import { createRoot } from "react-dom/client";
import { getToken, readLink, setToken, whenUnauthorized } from "./api.js";
import { Main } from "./components/Main.js";
import { SheetHost } from "./components/Sheet.js";
import { Inbox, Threads } from "./components/Side.js";
import { warmMarkdown } from "./lib/markdown.js";
import * as Notify from "./notify.js";
import {
  app,
  changed,
  connect,
  disconnect,
  openLink,
  queue,
  reconnectSoon,
  setNotify,
  useApp,
} from "./state.js";
import "./styles/base.css";
import "./styles/layout.css";
import "./styles/transcript.css";
import "./styles/markdown.css";
import "./styles/diff.css";
import "./styles/sheet.css";
import "./styles/phone.css";

function Auth() {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  return (
    <form
      id="auth"
      className="auth"
      onSubmit={(ev) => {
        ev.preventDefault();
        const t = input.current?.value.trim() ?? "";
        if (!t) return;
        setToken(t);
        app.authed = true;
        app.authError = "";
        changed();
        connect();
      }}
    >
      <label htmlFor="auth-token">
        Paste the token <code>tandem serve</code> printed at start
      </label>
      <div className="row">
        <input id="auth-token" ref={input} type="password" autoComplete="off" spellCheck={false} required />
        <button type="submit">Connect</button>
      </div>
      {app.authError && (
        <p id="auth-error" className="error" role="alert">
          {app.authError}
        </p>
      )}
    </form>
  );
}

function NotifyToggle() {
  return (
    <button
      type="button"
      id="notify"
      className="small secondary"
      aria-pressed={app.notify}
      aria-describedby={app.notifyError ? "notify-why" : undefined}
      title="Notify me when a question arrives while this page is hidden"
      onClick={async () => {
        if (app.notify) return setNotify(false);
        const why = await Notify.enable();
        setNotify(why === null, why ?? "");
      }}
    >
      {app.notify ? "Notifications on" : "Notify me"}
    </button>
  );
}

/** Why notifications are off or failed: the browser's reason, in words (notify.ts). */
function NotifyWhy() {
  if (!app.notifyError) return null;
  return (
    <p id="notify-why" className="notify-why" role="status">
      {app.notifyError}{" "}
      <button
        type="button"
        className="small secondary"
        onClick={() => {
          app.notifyError = "";
          changed();
        }}
      >
        OK
      </button>
    </p>
  );
}

function App() {
  useApp();
  const pending = queue().length;
  const toggle = (d: "threads" | "inbox") => {
    app.drawer = app.drawer === d ? null : d;
    changed();
  };
  return (
    <>
      <header className="bar" inert={app.sheet !== null}>
        <h1>Tandem</h1>
        <span className="grow" />
        {app.authed && <NotifyToggle />}
        {app.authed && (
          <button
            type="button"
            id="inbox-button"
            className="small only-phone"
            aria-expanded={app.drawer === "inbox"}
            data-n={pending}
            onClick={() => toggle("inbox")}
          >
            Questions{" "}
            <span className="count" data-n={pending}>
              {pending}
            </span>
          </button>
        )}
        <span id="conn" className="conn" data-state={app.conn} role="status">
          {app.connText}
        </span>
      </header>
      <NotifyWhy />
      {!app.authed ? (
        <main>
          <Auth />
        </main>
      ) : (
        <main id="app" className="layout" data-drawer={app.drawer ?? undefined} inert={app.sheet !== null}>
          <aside className="side" aria-label="Questions and threads">
            <Inbox />
            <Threads />
          </aside>
          {app.drawer && (
            <button
              type="button"
              className="scrim only-phone"
              aria-label="Close the panel"
              onClick={() => toggle(app.drawer!)}
            />
          )}
          <Main />
        </main>
      )}
      <SheetHost />
    </>
  );
}

whenUnauthorized((message) => {
  disconnect();
  app.authed = false;
  app.authError = message;
  app.conn = "offline";
  app.connText = "not connected";
  // Nothing may cover the token box: a question from before cannot be answered without one.
  app.sheet = null;
  app.drawer = null;
  changed();
});

/** Follows a deep link in the fragment: a new token (re)connects, a thread or question opens. */
function followLink(): void {
  const before = getToken();
  const link = readLink();
  if (!getToken()) {
    app.conn = "offline";
    app.connText = "not connected";
    changed();
    return;
  }
  if (!app.authed || (link.token && link.token !== before)) {
    app.authed = true;
    app.authError = "";
    connect();
  }
  if (link.thread || link.question) openLink(link.thread, link.question);
  changed();
}
followLink();
window.addEventListener("hashchange", followLink);
Notify.onOpen((thread, question) => openLink(thread, question));
void Notify.registerWorker();
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "visible") reconnectSoon();
});
window.addEventListener("online", reconnectSoon);
document.addEventListener("keydown", (ev) => {
  if (ev.key !== "Escape" || !app.drawer || app.sheet) return;
  const opener = app.drawer === "inbox" ? "inbox-button" : "threads-button";
  app.drawer = null;
  changed();
  document.getElementById(opener)?.focus();
});
createRoot(document.getElementById("root")!).render(<App />);
// The first thread opened should not pay for Markdown's first parse (lib/markdown.ts).
if ("requestIdleCallback" in window) requestIdleCallback(() => warmMarkdown(), { timeout: 2000 });
else setTimeout(warmMarkdown, 200);
