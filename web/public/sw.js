/*
 * The web app's service worker (README, "The web app"): it exists so notifications work where
 * browsers only show them through a registration (Android Chrome, an installed app on iOS), and
 * so a click on one opens the question it is about. It does nothing else: no fetch handler, no
 * cache (API answers hold the token and thread data, and must never be stored here).
 *
 * Contract with the page (web/src/notify.ts): a notification's `data.url` is the deep link to
 * open (src/util/deep-link.ts: `/#thread=…&question=…`, never a token); `data.thread` and
 * `data.question` name them. A click focuses an open window of the app and posts it
 * `{ type: "tandem.open", thread, question }`, or opens a new window at `data.url`.
 */
self.addEventListener("install", () => {
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener("notificationclick", (event) => {
  const data = event.notification.data || {};
  event.notification.close();
  event.waitUntil(openApp(data));
});

async function openApp(data) {
  const scope = new URL(self.registration.scope);
  const url = new URL(typeof data.url === "string" ? data.url : "/", scope);
  // Only a page of this app: a notification's data is ours, but never leave the origin.
  const target = url.origin === scope.origin ? url.href : scope.href;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = windows.find((c) => new URL(c.url).origin === scope.origin);
  if (!open) return self.clients.openWindow(target);
  try {
    await open.focus();
  } catch {
    // Focus needs the click's user activation; the page still opens the question.
  }
  open.postMessage({ type: "tandem.open", thread: data.thread, question: data.question });
}
