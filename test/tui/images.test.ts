/**
 * Images in the TUI composer (README "The terminal UI"): the built TUI in tmux turns a pasted
 * image path (bracketed paste, as a terminal pastes a dropped file) into a chip, and Ctrl+V the
 * clipboard's image (read with xclip: a stand-in xclip on PATH prints a PNG); sending carries
 * each as an input_image, without the chip's text.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Script } from "../../src/mock-model/index.js";
import { tempDir } from "../helpers/index.js";
import { hasTmux, requests, tuiHarness } from "../helpers/tui-harness.js";

const { launch, startMock, waitFor, keys, literal, paste } = tuiHarness({ name: "tandem-tui-images" });

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYPj/HwAEAQH/7yMKzgAAAABJRU5ErkJggg==",
  "base64",
);
const say = (text: string) => ({ output: [{ type: "message" as const, text }] });

const images = (body: any) =>
  body.input
    .filter((i: any) => i.type === "message" && i.role === "user")
    .flatMap((i: any) => i.content.filter((c: any) => c.type === "input_image").map((c: any) => c.image_url));
const texts = (body: any) =>
  body.input
    .filter((i: any) => i.type === "message" && i.role === "user")
    .flatMap((i: any) => i.content.filter((c: any) => c.type === "input_text").map((c: any) => c.text));

describe.skipIf(!hasTmux)("images in the TUI composer (tmux)", { timeout: 90_000 }, () => {
  it("a pasted image path and Ctrl+V become chips and reach the model as images", async () => {
    const dir = tempDir("tandem-tui-images-files-");
    writeFileSync(join(dir, "my shot.png"), PNG);
    const bin = join(dir, "bin");
    mkdirSync(bin);
    writeFileSync(join(bin, "xclip"), `#!/bin/sh\nbase64 -d <<'EOF'\n${PNG.toString("base64")}\nEOF\n`);
    chmodSync(join(bin, "xclip"), 0o755);
    const script: Script = { steps: [say("I see one image."), say("I see the clipboard.")] };
    const mock = await startMock(script);
    launch({ url: mock.url, env: { PATH: `${bin}:${process.env.PATH}` } });
    await waitFor("ask Tandem to do something");
    literal("what is in ");
    paste(`'${join(dir, "my shot.png")}'`);
    await waitFor("what is in [image 1: my shot.png]");
    literal("this?");
    keys("Enter");
    await waitFor("I see one image.");
    const first = requests(mock.log)[0];
    expect(images(first)).toEqual([`data:image/png;base64,${PNG.toString("base64")}`]);
    expect(texts(first).join("\n")).toContain("what is in this?");
    expect(texts(first).join("\n")).not.toContain("[image 1");

    keys("C-v");
    await waitFor("[image 1: clipboard.png]");
    keys("Enter");
    await waitFor("I see the clipboard.");
    // The history keeps the first image; the new message adds the clipboard's.
    expect(images(requests(mock.log)[1])).toHaveLength(2);
  });
});
