/**
 * Markdown to sanitised HTML, the only HTML the page ever inserts (STYLE: no innerHTML of model
 * text otherwise). marked renders GitHub-flavoured Markdown; DOMPurify then keeps only safe
 * markup: no script, no event handlers, no javascript: links. On top of DOMPurify's defaults:
 * links open in a new tab without an opener or referrer; images load only from data: URLs (the
 * page's CSP allows nothing else, and a remote image would tell a third party the page was
 * read).
 *
 * Syntax highlighting is lazy: highlight.js and its languages are fetched the first time a
 * fenced block appears, and its output is sanitised the same way before it replaces the text.
 */
import DOMPurify from "dompurify";
import { Marked } from "marked";

const marked = new Marked({ gfm: true, breaks: false, async: false });

let hooked = false;
function hook(): void {
  if (hooked) return;
  hooked = true;
  DOMPurify.addHook("afterSanitizeAttributes", (node) => {
    if (node.tagName === "A" && node.hasAttribute("href")) {
      node.setAttribute("target", "_blank");
      node.setAttribute("rel", "noopener noreferrer");
    }
    if (node.tagName === "IMG") {
      if (!/^data:image\//i.test(node.getAttribute("src") ?? "")) {
        node.removeAttribute("src");
        node.removeAttribute("srcset");
      }
      if (!node.hasAttribute("alt")) node.setAttribute("alt", "");
    }
  });
}

/** Sanitised HTML of `source` (Markdown). */
export function renderMarkdown(source: string): string {
  hook();
  const html = marked.parse(source) as string;
  return DOMPurify.sanitize(html, { USE_PROFILES: { html: true }, ADD_ATTR: ["target"] });
}

/**
 * Runs marked and DOMPurify once on a sample of every block and inline form. Their first call
 * compiles every rule's regular expression (~50 ms, more on a phone); done while the page
 * idles, it is not paid by the first thread opened. Pure: nothing is drawn.
 */
export function warmMarkdown(): void {
  renderMarkdown(
    "# h\n\nSub\n---\n\nA *b* **c** `d` [e](https://example.com) ~f~ <span>g</span>\n\n" +
      "> q\n\n- l\n- [ ] t\n\n1. n\n\n| a | b |\n|---|---|\n| c | d |\n\n```ts\nx\n```\n\n    code\n\n---\n",
  );
}

type Hljs = typeof import("highlight.js/lib/core").default;
let hljs: Promise<Hljs> | null = null;
function loadHljs(): Promise<Hljs> {
  hljs ??= (async () => {
    const core = (await import("highlight.js/lib/core")).default;
    const langs = await Promise.all([
      import("highlight.js/lib/languages/typescript"),
      import("highlight.js/lib/languages/javascript"),
      import("highlight.js/lib/languages/json"),
      import("highlight.js/lib/languages/bash"),
      import("highlight.js/lib/languages/python"),
      import("highlight.js/lib/languages/rust"),
      import("highlight.js/lib/languages/go"),
      import("highlight.js/lib/languages/diff"),
      import("highlight.js/lib/languages/yaml"),
      import("highlight.js/lib/languages/css"),
      import("highlight.js/lib/languages/xml"),
      import("highlight.js/lib/languages/sql"),
    ]);
    const names = [
      "typescript",
      "javascript",
      "json",
      "bash",
      "python",
      "rust",
      "go",
      "diff",
      "yaml",
      "css",
      "xml",
      "sql",
    ];
    langs.forEach((l, i) => {
      core.registerLanguage(names[i], l.default);
    });
    core.registerAliases(["ts", "tsx"], { languageName: "typescript" });
    core.registerAliases(["js", "jsx", "mjs"], { languageName: "javascript" });
    core.registerAliases(["sh", "shell", "zsh", "console"], { languageName: "bash" });
    core.registerAliases(["html", "svg"], { languageName: "xml" });
    core.registerAliases(["py"], { languageName: "python" });
    core.registerAliases(["rs"], { languageName: "rust" });
    core.registerAliases(["yml", "toml"], { languageName: "yaml" });
    return core;
  })();
  return hljs;
}

/** Sanitised highlighted HTML of `code`, or null when the language is not known. */
export async function highlight(code: string, language: string): Promise<string | null> {
  const h = await loadHljs();
  if (!language || !h.getLanguage(language)) return null;
  const html = h.highlight(code, { language, ignoreIllegals: true }).value;
  return DOMPurify.sanitize(html, { ALLOWED_TAGS: ["span"], ALLOWED_ATTR: ["class"] });
}
