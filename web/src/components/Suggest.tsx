/**
 * The composer's suggestions (docs/skills.md): while the message is a lone `/word`, the custom
 * commands of the thread's directory; while it ends in `$word`, its skills — from
 * `GET /skills?cwd=`. Clicking one, or Tab in the message box, completes it (`/name ` or `$name `);
 * sending `/name args` or a message naming `$name` is expanded by the server. While it ends in
 * `@word`, the thread's files matching it (`GET /thread/:id/files?q=`, fuzzy, the last answer
 * kept until the next arrives); choosing one writes `@path ` and sending attaches the file.
 */
import { useEffect, useState } from "react";
import { api, enc } from "../api.js";

export interface Entry {
  name: string;
  description: string;
  hint?: string | null;
}

interface Lists {
  commands: Entry[];
  skills: Entry[];
}

const cache = new Map<string, Lists>();

/** The commands and skills of `cwd`, fetched once per directory and page load. */
export function useSuggestLists(cwd: string | undefined): Lists {
  const [lists, setLists] = useState<Lists>({ commands: [], skills: [] });
  useEffect(() => {
    if (!cwd) return;
    const known = cache.get(cwd);
    if (known) return setLists(known);
    let live = true;
    api<{ commands: Array<Entry & { argument_hint: string | null }>; skills: Entry[] }>(
      "GET",
      `/skills?cwd=${enc(cwd)}`,
    )
      .then((r) => {
        const got = { commands: r.commands.map((c) => ({ ...c, hint: c.argument_hint })), skills: r.skills };
        cache.set(cwd, got);
        if (live) setLists(got);
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [cwd]);
  return lists;
}

/** The `@word` the draft ends in (a file mention being typed), or undefined. */
export function mentionQuery(text: string): string | undefined {
  const m = /(?:^|\s)@([^\s@"]*)$/.exec(text);
  return m ? m[1] : undefined;
}

/** `@path`, quoted when the path holds a space or parentheses (as the server reads mentions). */
const mentionToken = (path: string) => (/[\s()]|[.,;:!?)\]]$/.test(path) ? `@"${path}"` : `@${path}`);

/** The thread's files matching the draft's `@word`, searched as it changes. */
export function useFileHits(threadId: string | null | undefined, text: string): Entry[] {
  const query = mentionQuery(text);
  const [hits, setHits] = useState<Entry[]>([]);
  useEffect(() => {
    if (!threadId || query === undefined) return;
    let live = true;
    api<{ files: Array<{ path: string }> }>("GET", `/thread/${enc(threadId)}/files?q=${enc(query)}&limit=8`)
      .then((r) => {
        if (live) setHits(r.files.map((f) => ({ name: f.path, description: "" })));
      })
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [threadId, query]);
  return query === undefined ? [] : hits;
}

/** The web composer's own commands (sent as HTTP calls by state.ts `send`). */
const BUILT_IN: Entry[] = [
  {
    name: "review",
    description: "review the uncommitted changes, read-only",
    hint: "[base BRANCH | commit SHA | TEXT]",
  },
  { name: "undo", description: "restore the files the last turn changed (shows the diff, asks)" },
  { name: "redo", description: "re-apply the last undone turn's changes (asks)" },
  { name: "fork", description: "continue in a new thread with this conversation" },
];

/** What the suggestion list shows for `text`, and how choosing an entry rewrites it. */
export function suggestions(
  text: string,
  lists: Lists,
  files: Entry[] = [],
): { sigil: string; entries: Entry[]; complete(name: string): string } {
  const slash = /^\/([^\s/]*)$/.exec(text);
  if (slash)
    return {
      sigil: "/",
      entries: [
        ...BUILT_IN,
        ...lists.commands.filter((c) => !BUILT_IN.some((b) => b.name === c.name)),
      ].filter((c) => c.name.startsWith(slash[1])),
      complete: (n) => `/${n} `,
    };
  const dollar = /(?:^|\s)\$([a-z0-9-]*)$/.exec(text);
  if (dollar)
    return {
      sigil: "$",
      entries: lists.skills.filter((s) => s.name.startsWith(dollar[1])),
      complete: (n) => text.replace(/\$[a-z0-9-]*$/, `$${n} `),
    };
  if (files.length && mentionQuery(text) !== undefined)
    return {
      sigil: "@",
      entries: files,
      complete: (n) => text.replace(/@[^\s@"]*$/, `${mentionToken(n)} `),
    };
  return { sigil: "", entries: [], complete: (n) => n };
}

export function SuggestList({
  sigil,
  entries,
  onPick,
}: {
  sigil: string;
  entries: Entry[];
  onPick(name: string): void;
}) {
  if (!entries.length) return null;
  return (
    <ul
      id="composer-suggest"
      className="suggest"
      aria-label={sigil === "/" ? "Commands" : sigil === "@" ? "Files" : "Skills"}
    >
      {entries.slice(0, 8).map((e) => (
        <li key={e.name}>
          <button type="button" className="small secondary" onClick={() => onPick(e.name)}>
            {sigil === "@" ? mentionToken(e.name) : `${sigil}${e.name}`}
            {e.hint ? ` ${e.hint}` : ""}
          </button>
          <span className="muted">{e.description}</span>
        </li>
      ))}
    </ul>
  );
}
