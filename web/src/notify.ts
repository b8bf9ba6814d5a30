/**
 * Notifications for questions that arrive while the page is hidden (README, "The web app"),
 * shown through the service worker's registration (web/public/sw.js): Android Chrome refuses
 * `new Notification()` from a page, and iOS shows notifications only for an installed app with a
 * service worker. A click on one opens its question (through `onOpen`).
 *
 * Contract:
 * - `registerWorker()` registers `/sw.js` (scope `/`) once, where the page may: a secure context
 *   (https:// or localhost) with service workers. Failure is kept and reported, not thrown.
 * - `whyNot()` says, in words for the user, why notifications cannot work here now (not a
 *   secure context, no service workers, no Notification API — on an iPhone, not installed —,
 *   blocked in the site's settings, the registration failed), or null when they can.
 * - `enable()` asks for permission (a click must call it) and resolves with null when
 *   notifications are on, else the reason.
 * - `show()` shows one notification per request (tagged by its id; the deep link in its data
 *   holds no token) and resolves with the reason it could not, or null; `clear(id)` closes it.
 * - `onOpen(f)`: `f(thread, question)` when the worker reports a click.
 */
import { deepLink } from "../../src/util/deep-link.js";

let registration: Promise<ServiceWorkerRegistration | null> | null = null;
let failure = "";

const insecure = () =>
  `Notifications need a secure page: ${location.origin} is plain http. Open it on https:// (tandem serve --tls-cert FILE --tls-key FILE) or on localhost.`;

export function registerWorker(): Promise<ServiceWorkerRegistration | null> {
  registration ??=
    !window.isSecureContext || !("serviceWorker" in navigator)
      ? Promise.resolve(null)
      : navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(
          () => navigator.serviceWorker.ready,
          (e: Error) => {
            failure = `The service worker could not be registered (${e.message}), so notifications cannot be shown.`;
            return null;
          },
        );
  return registration;
}

export function whyNot(): string | null {
  if (!window.isSecureContext) return insecure();
  if (!("serviceWorker" in navigator))
    return "This browser has no service workers, so it cannot show notifications.";
  if (typeof Notification === "undefined")
    return "This browser cannot show notifications here. On an iPhone or iPad, add Tandem to the Home Screen (Share → Add to Home Screen) and open it from there.";
  if (Notification.permission === "denied")
    return "Notifications are blocked for this site: allow them in the browser's site settings, then try again.";
  return failure || null;
}

export async function enable(): Promise<string | null> {
  const reason = whyNot();
  if (reason) return reason;
  const permission =
    Notification.permission === "default" ? await Notification.requestPermission() : Notification.permission;
  if (permission !== "granted") return whyNot() ?? "Notifications were not allowed.";
  return (await registerWorker()) ? null : (whyNot() ?? "The service worker is not available.");
}

export async function show(
  title: string,
  body: string,
  thread: string,
  question: string,
): Promise<string | null> {
  const reason = whyNot();
  if (reason) return reason;
  if (Notification.permission !== "granted") return "Notifications are not allowed for this site.";
  const reg = await registerWorker();
  if (!reg) return whyNot() ?? "The service worker is not available.";
  try {
    const url = deepLink(location.origin, { thread, question });
    await reg.showNotification(title, { body, tag: question, data: { url, thread, question } });
    return null;
  } catch (e) {
    return `The browser refused to show the notification: ${(e as Error).message}`;
  }
}

export function clear(question: string): void {
  void registration?.then((reg) =>
    reg?.getNotifications({ tag: question }).then((all) => {
      for (const n of all) n.close();
    }),
  );
}

export function onOpen(f: (thread: string | undefined, question: string | undefined) => void): void {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.addEventListener("message", (ev: MessageEvent) => {
    const d = ev.data as { type?: string; thread?: unknown; question?: unknown } | null;
    if (d?.type !== "tandem.open") return;
    f(
      typeof d.thread === "string" ? d.thread : undefined,
      typeof d.question === "string" ? d.question : undefined,
    );
  });
  navigator.serviceWorker.startMessages?.();
}
