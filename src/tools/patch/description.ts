/**
 * Model-facing text of the apply_patch tools: the Lark grammar the Responses API constrains
 * the freeform tool's output with, and the descriptions of both tool forms. The grammar is the
 * strict form of what parser.ts accepts (the parser is more lenient, never stricter).
 */

/** Lark grammar of a patch, for `format: {type: "grammar", syntax: "lark"}`. */
export const APPLY_PATCH_GRAMMAR = `start: begin_patch hunk+ end_patch
begin_patch: "*** Begin Patch" LF
end_patch: "*** End Patch" LF?

hunk: add_hunk | delete_hunk | update_hunk
add_hunk: "*** Add File: " filename LF add_line+
delete_hunk: "*** Delete File: " filename LF
update_hunk: "*** Update File: " filename LF change_move? change?

filename: /(.+)/
add_line: "+" /(.*)/ LF -> line

change_move: "*** Move to: " filename LF
change: (change_context | change_line)+ eof_line?
change_context: ("@@" | "@@ " /(.+)/) LF
change_line: ("+" | "-" | " ") /(.*)/ LF
eof_line: "*** End of File" LF

%import common.LF
`;

const FORMAT = `A patch is plain text in this envelope:

*** Begin Patch
[one or more file operations]
*** End Patch

File operations:
*** Add File: <path>      create a file; every following line is "+" and a line of the new file
*** Delete File: <path>   remove a file; nothing follows
*** Update File: <path>   change a file in place; optionally followed by
*** Move to: <new path>   to rename it as well

An update is one or more chunks. A chunk starts with "@@" and then lists lines, each starting with
" " (context: an unchanged line), "-" (a line to remove) or "+" (a line to add).
- Show 3 lines of context above and below each change. Do not repeat context lines that an earlier
  chunk already showed; chunks must follow the order of the file.
- When 3 lines of context are not unique in the file, name the enclosing class or function after
  the "@@" ("@@ class Parser", "@@ def parse(self):"); several "@@" lines narrow step by step.
- End a chunk that changes the last lines of the file with "*** End of File".
- Copy context and removed lines exactly as they are in the file.

Example:

*** Begin Patch
*** Add File: docs/hello.md
+# Hello
+
+Welcome.
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-    print("Hi")
+    print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

Rules:
- Paths are relative to the working directory (absolute paths must lie inside it).
- Prefix every line of a new file with "+".
- Each call is atomic: if any chunk does not match, no file is changed and the error names the
  chunk; re-read the file and send a corrected patch. On success the result lists the files
  (A added, M modified, D deleted); you do not need to re-read them to check.`;

/** Description of the freeform (custom) tool. */
export const CUSTOM_DESCRIPTION = `Use the \`apply_patch\` tool to edit files: add, update, rename or delete them. This is a FREEFORM tool: send the patch itself as the input, not JSON.

${FORMAT}`;

/** Description of the JSON function tool variant. */
export const FUNCTION_DESCRIPTION = `Use the \`apply_patch\` tool to edit files: add, update, rename or delete them. Pass the whole patch, from "*** Begin Patch" to "*** End Patch", as the \`input\` string.

${FORMAT}`;
