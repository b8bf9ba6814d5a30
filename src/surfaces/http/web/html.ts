/**
 * The page's HTML shell. Static: everything dynamic is built by app.js with DOM APIs
 * (textContent, never innerHTML with data), so no server data is ever interpolated here.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<title>Tandem</title>
<link rel="stylesheet" href="/app.css">
<script src="/app.js" defer></script>
</head>
<body>
<header class="bar">
  <h1>Tandem</h1>
  <span id="conn" class="conn" data-state="connecting">connecting…</span>
</header>

<form id="auth" class="auth" hidden>
  <label for="auth-token">Paste the token <code>tandem serve</code> printed at start</label>
  <div class="row">
    <input id="auth-token" type="password" autocomplete="off" spellcheck="false" required>
    <button type="submit">Connect</button>
  </div>
  <p id="auth-error" class="error" hidden></p>
</form>

<main id="app" class="layout" hidden>
  <aside class="side">
    <section class="panel inbox" aria-labelledby="inbox-h">
      <h2 id="inbox-h">Questions <span id="inbox-count" class="count" data-n="0">0</span></h2>
      <ul id="inbox" class="list"></ul>
      <p id="inbox-empty" class="empty">No questions waiting.</p>
    </section>
    <section class="panel threads" aria-labelledby="threads-h">
      <h2 id="threads-h">Threads <button id="new-thread" type="button" class="small secondary">New</button></h2>
      <ul id="threads" class="list"></ul>
      <p id="threads-empty" class="empty">No threads yet. Write a message to start one.</p>
    </section>
  </aside>

  <section class="thread" aria-labelledby="thread-title">
    <div class="thread-head">
      <h2 id="thread-title">New thread</h2>
      <span id="thread-status" class="status"></span>
    </div>
    <ol id="transcript" class="transcript" aria-live="polite"></ol>
    <form id="composer" class="composer">
      <textarea id="composer-text" rows="2" placeholder="Message (Ctrl+Enter to send)" aria-label="Message"></textarea>
      <div class="row">
        <select id="composer-mode" aria-label="Mode">
          <option value="plan">Plan mode</option>
          <option value="default">Default mode</option>
        </select>
        <span class="grow"></span>
        <button id="interrupt" type="button" class="secondary" hidden>Interrupt</button>
        <button id="send" type="submit">Send</button>
      </div>
      <p id="composer-error" class="error" role="alert" hidden></p>
    </form>
  </section>
</main>

<div id="sheet" class="sheet" hidden>
  <form id="q-form" class="sheet-body" role="dialog" aria-modal="true" aria-labelledby="q-title" novalidate>
    <div class="q-head">
      <h2 id="q-title">Question</h2>
      <span id="q-countdown" class="countdown" hidden></span>
    </div>
    <p id="q-thread" class="muted"></p>
    <p id="q-banner" class="banner" role="status" hidden></p>
    <div id="q-list"></div>
    <div id="q-confirm" class="confirm" role="alert" hidden>
      <p id="q-confirm-text"></p>
      <div class="row">
        <button id="q-confirm-back" type="button" class="secondary">Go back</button>
        <button id="q-confirm-ok" type="button">Submit anyway</button>
      </div>
    </div>
    <p id="q-error" class="error" role="alert" hidden></p>
    <div class="q-actions">
      <button id="q-decline" type="button" class="secondary danger">Decline <kbd>Esc</kbd></button>
      <button id="q-later" type="button" class="secondary">Later</button>
      <span class="grow"></span>
      <button id="q-submit" type="submit">Submit <kbd>Enter</kbd></button>
    </div>
    <p class="hint">Digits pick an option · Enter goes to the next question, then submits · Esc declines</p>
  </form>
</div>
</body>
</html>
`;
