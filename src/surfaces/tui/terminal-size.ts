/**
 * The terminal's size as React state: re-renders on every `resize` of Ink's stdout. Ink itself
 * redraws on resize but does not re-render components, so anything laid out from the size
 * (the question overlay's height budget, the transcript's wrap width) reads it from here.
 */
import { useStdout } from "ink";
import { useEffect, useState } from "react";

export interface TerminalSize {
  columns: number;
  rows: number;
}

const sizeOf = (s: NodeJS.WriteStream): TerminalSize => ({ columns: s.columns || 100, rows: s.rows || 40 });

export function useTerminalSize(): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState(() => sizeOf(stdout));
  useEffect(() => {
    const on = () =>
      setSize((old) => {
        const next = sizeOf(stdout);
        return next.columns === old.columns && next.rows === old.rows ? old : next;
      });
    on();
    stdout.on("resize", on);
    return () => {
      stdout.off("resize", on);
    };
  }, [stdout]);
  return size;
}
