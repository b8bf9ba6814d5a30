import { describe, expect, it } from "vitest";
import { deepLink, parseDeepLink } from "./deep-link.js";

describe("deep links", () => {
  it("writes token, thread and question into the fragment, percent-encoded, in that order", () => {
    expect(deepLink("https://box.lan:4500", { question: "req/1&x", token: "a+b=c", thread: "thr_1 2" })).toBe(
      "https://box.lan:4500/#token=a%2Bb%3Dc&thread=thr_1%202&question=req%2F1%26x",
    );
  });

  it("keeps the base's path, drops its query and fragment, and leaves out empty parts", () => {
    expect(deepLink("http://127.0.0.1:9/app/?x=1#old", { token: "t", thread: "" })).toBe(
      "http://127.0.0.1:9/app/#token=t",
    );
    expect(deepLink("http://[::1]:9", {})).toBe("http://[::1]:9/");
  });

  it("reads back what it writes, and tolerates hand-written fragments", () => {
    const parts = { token: "tok&=%", thread: "thr/é", question: "q 1" };
    const link = deepLink("http://h:1", parts);
    expect(parseDeepLink(new URL(link).hash)).toEqual(parts);
    expect(parseDeepLink("thread=a&thread=b&junk&other=1&question=%E0%A4%A")).toEqual({ thread: "b" });
    expect(parseDeepLink("")).toEqual({});
  });
});
