/** Skill folders and prompt files as public skills repositories ship them, written into temp dirs. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A realistic skill (SKILL.md with scripts/ and references/) at `root/NAME/`; returns its SKILL.md. */
export function writePdfSkill(root: string, name = "pdf-tools"): string {
  const dir = join(root, name);
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "references"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---
name: ${name}
description: Extract text and tables from PDF files, fill PDF forms. Use when the user works with PDF documents.
license: Apache-2.0
allowed-tools: Bash Read
metadata:
  author: example-org
  version: "1.2"
---

# PDF tools

BODY-MARKER-PDF: follow these steps.

1. Extract text with \`python3 scripts/extract.py input.pdf\`.
2. For forms, read [the forms guide](references/FORMS.md) first.
`,
  );
  writeFileSync(join(dir, "scripts", "extract.py"), "import sys\nprint('extracted', sys.argv[1:])\n");
  writeFileSync(join(dir, "references", "FORMS.md"), "# Forms\n\nFill fields in order.\n");
  return join(dir, "SKILL.md");
}

/** A skill needing API_TOKEN (Codex agents/openai.yaml) whose script writes what it got into `out`. */
export function writeDeploySkill(root: string): string {
  const dir = join(root, "deploy-app");
  mkdirSync(join(dir, "scripts"), { recursive: true });
  mkdirSync(join(dir, "agents"), { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---
name: deploy-app
description: Deploy the app to the staging cluster. Use when the user asks to deploy.
---

# Deploy

BODY-MARKER-DEPLOY: run \`sh scripts/deploy.sh\` from the skill folder.
`,
  );
  writeFileSync(
    join(dir, "agents", "openai.yaml"),
    `interface:
  display_name: "Deploy app"
  short_description: "Deploy to staging"
dependencies:
  tools:
    - type: "env_var"
      value: "API_TOKEN"
      description: "Staging deploy token"
`,
  );
  writeFileSync(
    join(dir, "scripts", "deploy.sh"),
    'printf "%s" "$API_TOKEN" > deployed-with.txt\necho deployed\n',
  );
  return join(dir, "SKILL.md");
}

/** `/review-pr` as Claude Code writes it (`.claude/commands/review-pr.md`). */
export function writeReviewCommand(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "review-pr.md");
  writeFileSync(
    file,
    `---
description: Review a pull request by number
argument-hint: PR-NUMBER
---
Review pull request #$1 (all arguments: $ARGUMENTS). Check tests first.
`,
  );
  return file;
}
