/**
 * The thread pane: its head (title ellipsised, status badge), the transcript, and the composer
 * (Enter sends, Shift+Enter is a newline; while a turn runs the same box steers it, and
 * Interrupt stops it). With no thread selected, a new-thread form: working directory (the
 * server's, or one of the recent ones), model and mode; the first message then starts the thread.
 */
import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { printable } from "../../../src/util/printable.js";
import { imageDataUrl } from "../lib/image.js";
import { app, changed, createThread, interrupt, selectThread, send, shortId, threadName } from "../state.js";
import { statusText } from "./Side.js";
import { SuggestList, suggestions, useFileHits, useSuggestLists } from "./Suggest.js";
import { ThreadSettings } from "./ThreadSettings.js";
import { Transcript } from "./Transcript.js";

// The files-changed view and its diff composition load when first opened.
const Files = lazy(() => import("./Files.js"));

function NewThread() {
  const recentCwds = [...new Set([app.defaultCwd, ...[...app.threads.values()].map((t) => t.cwd)])].filter(
    Boolean,
  );
  const recentModels = [...new Set([...app.threads.values()].map((t) => t.model))];
  // The server's own directory first (where `tandem serve` started), not the last thread's.
  const [cwd, setCwd] = useState(app.defaultCwd);
  const [model, setModel] = useState("");
  const [mode, setMode] = useState<"plan" | "default">("plan");
  const [error, setError] = useState("");
  return (
    <form
      id="new-thread-form"
      className="new-thread"
      aria-labelledby="new-thread-h"
      onSubmit={(ev) => {
        ev.preventDefault();
        setError("");
        createThread({
          mode,
          ...(cwd.trim() ? { cwd: cwd.trim() } : {}),
          ...(model.trim() ? { model: model.trim() } : {}),
        }).then(
          () => document.getElementById("composer-text")?.focus(),
          (e) => setError((e as Error).message),
        );
      }}
    >
      <h2 id="new-thread-h">New thread</h2>
      <label className="field">
        Working directory
        <input
          id="nt-cwd"
          list="nt-cwds"
          value={cwd}
          onChange={(e) => setCwd(e.currentTarget.value)}
          placeholder="the server's directory"
        />
        <datalist id="nt-cwds">
          {recentCwds.map((c) => (
            <option key={c} value={c} />
          ))}
        </datalist>
      </label>
      <label className="field">
        Model
        <input
          id="nt-model"
          list="nt-models"
          value={model}
          onChange={(e) => setModel(e.currentTarget.value)}
          placeholder="the configured model"
        />
        <datalist id="nt-models">
          {recentModels.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
      <label className="field">
        Mode
        <select
          id="nt-mode"
          value={mode}
          onChange={(e) => setMode(e.currentTarget.value as "plan" | "default")}
        >
          <option value="plan">Plan mode</option>
          <option value="default">Default mode</option>
        </select>
      </label>
      <div className="row">
        <button type="submit">Create thread</button>
        <span className="muted">or just write a message below</span>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

function Composer() {
  const t = app.current ? app.threads.get(app.current) : undefined;
  const running = Boolean(t?.active_turn_id);
  const [mode, setMode] = useState<"plan" | "default">(t?.mode ?? "plan");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [images, setImages] = useState<string[]>([]);
  const box = useRef<HTMLTextAreaElement>(null);
  const [draft, setDraft] = useState("");
  // A rewound message comes back here to be edited and sent again (branches.ts).
  useEffect(() => {
    if (app.draft === null || !box.current) return;
    box.current.value = app.draft;
    setDraft(app.draft);
    app.draft = null;
    box.current.focus();
  });
  const suggest = suggestions(draft, useSuggestLists(t?.cwd), useFileHits(app.current, draft));
  const pick = (name: string) => {
    const el = box.current;
    if (!el) return;
    el.value = suggest.complete(name);
    setDraft(el.value);
    el.focus();
  };
  const go = async () => {
    const el = box.current;
    const text = el?.value.trim() ?? "";
    if (!el || !text || busy) return;
    if (running && images.length) {
      setError("Images go with a new message: steering input is text only.");
      return;
    }
    setBusy(true);
    setError("");
    try {
      await send(text, mode, images);
      el.value = "";
      setDraft("");
      setImages([]);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      id="composer"
      className="composer"
      onSubmit={(ev) => {
        ev.preventDefault();
        void go();
      }}
    >
      <textarea
        id="composer-text"
        ref={box}
        rows={2}
        placeholder={
          running
            ? "Steer the running turn (Enter to send)"
            : "Message (Enter to send, Shift+Enter for a new line)"
        }
        aria-label="Message"
        enterKeyHint="send"
        onInput={(ev) => setDraft(ev.currentTarget.value)}
        onKeyDown={(ev) => {
          if (ev.key === "Tab" && suggest.entries.length) {
            ev.preventDefault();
            pick(suggest.entries[0].name);
            return;
          }
          if (ev.key === "Enter" && !ev.shiftKey && !ev.nativeEvent.isComposing) {
            ev.preventDefault();
            void go();
          }
        }}
      />
      <SuggestList sigil={suggest.sigil} entries={suggest.entries} onPick={pick} />
      {images.length > 0 && (
        <ul className="attachments" aria-label="Attached images">
          {images.map((src, i) => (
            <li key={src}>
              <img src={src} alt={`attachment ${i + 1}`} />
              <button
                type="button"
                className="small secondary"
                aria-label={`Remove attachment ${i + 1}`}
                onClick={() => setImages((all) => all.filter((x) => x !== src))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="row composer-row">
        <label className="button secondary attach">
          Image
          <input
            id="composer-images"
            type="file"
            accept="image/*"
            multiple
            className="visually-hidden"
            onChange={async (ev) => {
              const input = ev.currentTarget;
              const files = [...(input.files ?? [])].slice(0, 8 - images.length);
              input.value = "";
              try {
                const urls = await Promise.all(files.map((f) => imageDataUrl(f)));
                setImages((all) => [...all, ...urls].slice(0, 8));
              } catch (e) {
                setError(`Could not read the image: ${(e as Error).message}`);
              }
            }}
          />
        </label>
        <select
          id="composer-mode"
          aria-label="Mode"
          value={mode}
          onChange={(e) => setMode(e.currentTarget.value as "plan" | "default")}
        >
          <option value="plan">Plan</option>
          <option value="default">Default</option>
        </select>
        <span className="grow" />
        {running && app.current && (
          <button
            id="interrupt"
            type="button"
            className="secondary danger"
            onClick={() => interrupt(app.current!).catch((e) => setError((e as Error).message))}
          >
            Interrupt
          </button>
        )}
        <button id="send" type="submit" disabled={busy}>
          {running ? "Steer" : "Send"}
        </button>
      </div>
      {error && (
        <p id="composer-error" className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

export function Main() {
  const t = app.current ? app.threads.get(app.current) : undefined;
  const name = t?.agent ? `Sub-agent ${t.agent.nickname}` : t ? threadName(t.id) : "";
  const label = t ? `${printable(name)} · ${shortId(t.id)}` : "New thread";
  const parent = t?.parent_id ? app.threads.get(t.parent_id) : undefined;
  const hasDiffs = app.transcript.entries.some((e) => e.kind === "diff" && e.id.startsWith("diff_"));
  return (
    <section className="thread" aria-labelledby="thread-title">
      <div className="thread-head">
        <button
          id="threads-button"
          type="button"
          className="icon secondary only-phone"
          aria-label="Threads"
          aria-expanded={app.drawer === "threads"}
          onClick={() => {
            app.drawer = app.drawer === "threads" ? null : "threads";
            changed();
          }}
        >
          ☰
        </button>
        <h2 id="thread-title" className="ellipsis" title={t ? t.cwd : undefined}>
          {label}
        </h2>
        {parent && (
          <button
            id="parent-thread"
            type="button"
            className="small secondary"
            title="A sub-agent: back to the thread that spawned it"
            onClick={() => selectThread(parent.id)}
          >
            ↑ {printable(threadName(parent.id))}
          </button>
        )}
        {t && (
          <span id="thread-status" className="status" data-s={t.status}>
            {statusText(t)}
          </span>
        )}
        {t && hasDiffs && (
          <button
            id="files-button"
            type="button"
            className="small secondary"
            aria-pressed={app.files}
            onClick={() => {
              app.files = !app.files;
              changed();
            }}
          >
            Files
          </button>
        )}
        {t && (
          <button
            id="settings-button"
            type="button"
            className="small secondary"
            aria-expanded={app.settings}
            aria-label="Model and effort"
            title={`${t.model} · effort ${t.effort ?? "as configured"}`}
            onClick={() => {
              app.settings = !app.settings;
              changed();
            }}
          >
            ⚙
          </button>
        )}
      </div>
      {t && app.settings && <ThreadSettings t={t} />}
      {app.loadError && (
        <p className="error" role="alert">
          {app.loadError}
        </p>
      )}
      {!t && app.newThread ? <NewThread /> : null}
      {t && app.files ? (
        <Suspense fallback={<p className="empty">Loading…</p>}>
          <Files />
        </Suspense>
      ) : (
        <Transcript entries={app.transcript.entries} version={app.transcript.version} />
      )}
      {app.notice && (
        <p id="notice" className={`notice ${app.notice.tone}`} role="status">
          {printable(app.notice.text)}
          {app.notice.open && (
            <button
              type="button"
              className="small secondary"
              onClick={() => app.notice?.open && selectThread(app.notice.open)}
            >
              Open it
            </button>
          )}
        </p>
      )}
      <Composer key={app.current ?? "new"} />
    </section>
  );
}
