/**
 * Model text as rendered Markdown: headings, lists, tables, links (new tab), inline and fenced
 * code. Fenced blocks get a Copy button and, lazily, syntax highlighting. The HTML comes only
 * from renderMarkdown (DOMPurify-sanitised); control and bidi characters are shown as symbols
 * first (printable), so what the user reads is what the text holds.
 */
import { memo, useEffect, useMemo, useRef } from "react";
import { printable } from "../../../src/util/printable.js";
import { highlight, renderMarkdown } from "../lib/markdown.js";

function decorate(root: HTMLElement, alive: () => boolean): void {
  for (const pre of root.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    if (!code || pre.parentElement?.classList.contains("code-block")) continue;
    const wrap = document.createElement("div");
    wrap.className = "code-block";
    pre.replaceWith(wrap);
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy small secondary";
    copy.textContent = "Copy";
    copy.setAttribute("aria-label", "Copy code");
    const text = code.textContent ?? "";
    copy.onclick = () => {
      navigator.clipboard?.writeText(text).then(
        () => {
          copy.textContent = "Copied";
          setTimeout(() => {
            copy.textContent = "Copy";
          }, 1500);
        },
        () => {
          copy.textContent = "Copy failed";
        },
      );
    };
    wrap.append(copy, pre);
    const lang = /language-([\w+-]+)/.exec(code.className)?.[1];
    if (lang)
      void highlight(text, lang.toLowerCase()).then((html) => {
        if (html !== null && alive() && code.isConnected) {
          code.innerHTML = html; // sanitised by highlight()
          code.classList.add("hljs");
        }
      });
  }
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const html = useMemo(() => renderMarkdown(printable(text)), [text]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: React replaces the markup when html changes; decorate it again
  useEffect(() => {
    let alive = true;
    if (ref.current) decorate(ref.current, () => alive);
    return () => {
      alive = false;
    };
  }, [html]);
  // biome-ignore lint/security/noDangerouslySetInnerHtml: DOMPurify-sanitised Markdown (renderMarkdown)
  return <div className="md" ref={ref} dangerouslySetInnerHTML={{ __html: html }} />;
});
