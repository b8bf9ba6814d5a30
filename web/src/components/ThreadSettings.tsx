/**
 * Model and reasoning effort of the selected thread's later turns (PATCH /thread/:id/settings):
 * a small form under the thread's head. The mode is the composer's. "Configured" effort means
 * the thread has none of its own (config.toml's model_reasoning_effort applies).
 */
import { useState } from "react";
import type { ThreadSummary } from "../../../src/protocol/http.js";
import { app, changed, saveSettings } from "../state.js";

const EFFORTS = ["minimal", "low", "medium", "high", "xhigh"] as const;

export function ThreadSettings({ t }: { t: ThreadSummary }) {
  const models = [...new Set([t.model, ...[...app.threads.values()].map((x) => x.model)])];
  const [model, setModel] = useState(t.model);
  const [effort, setEffort] = useState<string>(t.effort ?? "");
  const [error, setError] = useState("");
  const close = () => {
    app.settings = false;
    changed();
  };
  return (
    <form
      id="settings-form"
      className="settings-form"
      aria-label="Model and effort of the next turns"
      onSubmit={(ev) => {
        ev.preventDefault();
        setError("");
        const m = model.trim();
        const body = {
          ...(m && m !== t.model ? { model: m } : {}),
          ...(effort !== (t.effort ?? "") ? { effort: effort || null } : {}),
        };
        // Nothing changed: there is nothing to ask the server (it refuses an empty change).
        if (!Object.keys(body).length) return close();
        saveSettings(t.id, body).then(close, (e) => setError((e as Error).message));
      }}
      onKeyDown={(ev) => {
        if (ev.key === "Escape") close();
      }}
    >
      <label className="field">
        Model
        <input
          id="set-model"
          list="set-models"
          value={model}
          onChange={(e) => setModel(e.currentTarget.value)}
        />
        <datalist id="set-models">
          {models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
      <label className="field">
        Reasoning effort
        <select id="set-effort" value={effort} onChange={(e) => setEffort(e.currentTarget.value)}>
          <option value="">Configured</option>
          {EFFORTS.map((e) => (
            <option key={e} value={e}>
              {e}
            </option>
          ))}
        </select>
      </label>
      <div className="row">
        <button id="set-save" type="submit">
          Save
        </button>
        <button type="button" className="secondary" onClick={close}>
          Cancel
        </button>
        <span className="muted">for the next turns</span>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
