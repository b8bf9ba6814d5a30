/**
 * A thread's title, made from its first message (the runtime stores it, runtime/thread.ts; the
 * web app shows the same before it reads the thread again): whitespace runs become one space,
 * at most 80 characters.
 */
export function threadTitle(text: string): string {
  return text.replace(/\s+/g, " ").trim().slice(0, 80);
}
