/**
 * The app shell: committed transcript (written once to the scrollback), live area, the question pane or the
 * composer's lock, the composer and the status line. Global keys: Ctrl+C (first press interrupts
 * a running turn and arms quitting; a second press within 2 s quits); `app.agents` opens the
 * sub-agents picker. While a sub-agent's transcript is shown (agent-view.ts) its cells, live area
 * and state are drawn instead of the thread's; questions, the composer (it still sends to the
 * thread) and the scrollback's place in the thread's transcript stay the thread's.
 */

import { Box, useApp, useInput } from "ink";
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import { clipboardImage } from "./clipboard-image.js";
import { Composer, type PasteSource } from "./composer.js";
import type { TuiController } from "./controller.js";
import type { Keymap } from "./keymap.js";
import { QuestionPane } from "./overlay.js";
import { StatusLine } from "./status-line.js";
import { useTerminalSize } from "./terminal-size.js";
import { LiveArea, liveAreaRows, Scrollback, useRenderOptions } from "./transcript.js";

export const QUIT_WINDOW_MS = 2000;

export function App({
  controller,
  keymap,
  pastes,
}: {
  controller: TuiController;
  keymap: Keymap;
  /** Out-of-band bracketed pastes (paste.ts); without it pastes are read in band. */
  pastes?: PasteSource;
}) {
  const store = controller.store;
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const agents = controller.agentView;
  const viewing = useSyncExternalStore(agents.subscribe, agents.current);
  const shown = viewing?.store ?? store;
  const view = useSyncExternalStore(shown.subscribe, shown.getSnapshot);
  const { exit } = useApp();
  const [hint, setHint] = useState<string | null>(null);
  const armedAt = useRef(0);

  useEffect(() => {
    if (!hint) return;
    const t = setTimeout(() => setHint(null), QUIT_WINDOW_MS);
    return () => clearTimeout(t);
  }, [hint]);

  useInput((input, key) => {
    if (keymap.is("app.agents", input, key)) {
      // Not over a question (the overlay has the keys) or another picker.
      if (!controller.menus.current() && snap.pending.length === 0 && !snap.settled) agents.openPicker();
      return;
    }
    const presses = keymap.presses("app.quit", input, key);
    if (presses === 0) return;
    const now = Date.now();
    if (presses > 1 || now - armedAt.current < QUIT_WINDOW_MS) {
      exit();
      return;
    }
    armedAt.current = now;
    const interrupted = controller.running && controller.interrupt();
    setHint(`${interrupted ? "Interrupted. " : ""}Press ${keymap.label("app.quit")} again to quit.`);
  });

  const onSubmit = useCallback(
    (text: string, images: string[]) => {
      if (text) controller.history.record(text, controller.cwd);
      if (controller.submit(text, images) === "quit") exit();
    },
    [controller, exit],
  );
  const onPasteImage = useCallback(() => clipboardImage(), []);
  const onNotice = useCallback((text: string) => controller.notice(text, "warn"), [controller]);
  const onInterrupt = useCallback(() => {
    controller.interrupt();
  }, [controller]);
  const onBack = useCallback(() => {
    agents.back();
  }, [agents]);
  const onRewind = useCallback(() => {
    controller.command("rewind", "");
  }, [controller]);
  const onKey = useCallback(() => {
    armedAt.current = 0;
  }, []);

  const locked = snap.pending.length > 0 || snap.settled !== null;
  const running = snap.status.turnStartedAt !== null;
  // The overlay gets the rows the live area and status line leave (Ink wipes the scrollback
  // when its frame reaches the terminal's height); the locked composer is hidden meanwhile.
  const { rows } = useTerminalSize();
  const renderOpts = useRenderOptions();
  const overlayRows =
    rows -
    1 -
    liveAreaRows(view, renderOpts) -
    1 -
    (hint ? 1 : 0) -
    (view.status.retrying ? 1 : 0) -
    (viewing ? 1 : 0);
  return (
    <>
      {viewing ? (
        <Scrollback key={viewing.id} cells={view.committed} />
      ) : (
        <Scrollback key="thread" cells={snap.committed} cursor={agents.rootCursor} />
      )}
      <Box flexDirection="column">
        <LiveArea snap={view} />
        {locked ? (
          <QuestionPane
            pending={snap.pending}
            settled={snap.settled}
            keymap={keymap}
            onSubmit={(r, reply) => controller.reply(r, reply)}
            onDecline={(r) => controller.decline(r)}
            onTouch={(r) => controller.touch(r)}
            onDismiss={() => store.dismissSettled()}
            maxRows={overlayRows}
          />
        ) : null}
        <Box display={locked ? "none" : "flex"} flexDirection="column">
          <Composer
            keymap={keymap}
            locked={locked}
            running={running}
            onSubmit={onSubmit}
            onPasteImage={onPasteImage}
            onNotice={onNotice}
            onInterrupt={onInterrupt}
            onBack={viewing ? onBack : undefined}
            onRewind={onRewind}
            onKey={onKey}
            history={controller.history}
            pastes={pastes}
            menus={controller.menus}
            completions={controller.skills}
            drafts={controller.skills}
          />
        </Box>
        <StatusLine
          status={view.status}
          pending={snap.pending.length}
          hint={hint}
          viewing={viewing ? { nickname: viewing.nickname, back: keymap.label("turn.interrupt") } : undefined}
        />
      </Box>
    </>
  );
}
