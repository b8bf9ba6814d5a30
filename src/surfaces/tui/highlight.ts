/**
 * A tiny syntax colourer for fenced code in the transcript: keywords, strings, comments and
 * numbers, one line at a time. Chosen over highlight.js (≈1 MB with its languages, parsed at
 * startup of every `tandem`) because a terminal transcript needs only a hint of structure and
 * this costs nothing to load. Unknown languages get strings, numbers and `#`/`//` comments only.
 * Line based: a block comment or string spanning lines is coloured on its first line only.
 */
import type { Piece, Style } from "./ansi.js";

const KEYWORDS: Record<string, string> = {
  js: "async await break case catch class const continue default delete do else export extends false finally for from function if import in instanceof let new null of return static super switch this throw true try typeof undefined var void while yield",
  ts: "abstract as async await break case catch class const continue declare default delete do else enum export extends false finally for from function if implements import in instanceof interface keyof let namespace new null of private protected public readonly return satisfies static super switch this throw true try type typeof undefined var void while yield",
  py: "and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return self True try while with yield",
  rust: "as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while",
  go: "break case chan const continue default defer else fallthrough for func go goto if import interface map nil package range return select struct switch type var true false",
  sh: "case do done elif else esac export fi for function if in local return then until while echo cd set unset",
  c: "auto break case char const continue default do double else enum extern float for goto if int long register return short signed sizeof static struct switch typedef union unsigned void volatile while class namespace template public private protected new delete true false nullptr",
  java: "abstract boolean break byte case catch char class const continue default do double else enum extends final finally float for if implements import instanceof int interface long new null package private protected public return short static super switch this throw throws true false try void while",
};
const ALIASES: Record<string, string> = {
  javascript: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  typescript: "ts",
  tsx: "ts",
  python: "py",
  rs: "rust",
  golang: "go",
  bash: "sh",
  shell: "sh",
  zsh: "sh",
  console: "sh",
  cpp: "c",
  "c++": "c",
  h: "c",
  cs: "java",
  kotlin: "java",
};
const HASH_COMMENT = new Set(["py", "sh", "rb", "ruby", "toml", "yaml", "yml", "perl", "r"]);
const sets = new Map<string, Set<string>>();

const STYLE = {
  keyword: { color: "magenta" },
  string: { color: "green" },
  comment: { dim: true, italic: true },
  number: { color: "yellow" },
  plain: { color: "cyan" },
} as const satisfies Record<string, Style>;

function keywords(lang: string): Set<string> {
  const key = ALIASES[lang] ?? lang;
  let set = sets.get(key);
  if (!set) {
    set = new Set((KEYWORDS[key] ?? "").split(" ").filter(Boolean));
    sets.set(key, set);
  }
  return set;
}

/** One line of code in `lang` as styled pieces (their texts join to `text`). */
export function highlightLine(text: string, lang: string): Piece[] {
  const l = lang.toLowerCase();
  const key = ALIASES[l] ?? l;
  const kw = keywords(l);
  const hash = HASH_COMMENT.has(key) || !(key in KEYWORDS);
  const slash = key !== "py" && key !== "sh";
  const out: Piece[] = [];
  const push = (t: string, style: Style) => {
    const last = out[out.length - 1];
    if (last && last.style === style) last.text += t;
    else out.push({ text: t, style });
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    if (
      (slash && rest.startsWith("//")) ||
      (hash && rest.startsWith("#") && (i === 0 || /\s/.test(text[i - 1])))
    ) {
      push(rest, STYLE.comment);
      break;
    }
    const q = rest[0];
    if (q === '"' || q === "'" || q === "`") {
      let j = 1;
      while (j < rest.length && rest[j] !== q) j += rest[j] === "\\" ? 2 : 1;
      push(rest.slice(0, j + 1), STYLE.string);
      i += j + 1;
      continue;
    }
    const word = /^[A-Za-z_$][\w$]*/.exec(rest)?.[0];
    if (word) {
      push(word, kw.has(word) ? STYLE.keyword : STYLE.plain);
      i += word.length;
      continue;
    }
    const num = /^\d[\d_.xXa-fA-F]*/.exec(rest)?.[0];
    if (num) {
      push(num, STYLE.number);
      i += num.length;
      continue;
    }
    push(rest[0], STYLE.plain);
    i += 1;
  }
  return out;
}
