/** Colours of the terminal UI, in one place (Ink colour names). `NO_COLOR` is honoured by Ink's chalk. */
export const theme = {
  accent: "cyan",
  user: "blue",
  code: "cyan",
  link: "blue",
  heading: "magenta",
  ok: "green",
  warn: "yellow",
  error: "red",
  question: "yellow",
  selected: "green",
  demo: "magenta",
} as const;
