import { describe, expect, it } from "vitest";
import { localTimeZone, zoneFromLocaltimeLink } from "./context.js";

describe("time zone without ICU", () => {
  it("reads the zone from a /etc/localtime link target", () => {
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/Europe/Paris")).toBe("Europe/Paris");
    expect(zoneFromLocaltimeLink("../usr/share/zoneinfo/America/Argentina/Buenos_Aires")).toBe(
      "America/Argentina/Buenos_Aires",
    );
    expect(zoneFromLocaltimeLink("/var/db/timezone/zoneinfo/Asia/Kolkata")).toBe("Asia/Kolkata"); // macOS
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/posix/Etc/GMT+5")).toBe("Etc/GMT+5");
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/Etc/UTC")).toBe("UTC");
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/UTC")).toBe("UTC");
    expect(zoneFromLocaltimeLink("/etc/some-file")).toBeUndefined();
    // A link a root command repointed cannot close the <timezone> tag it lands in.
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/</timezone><x>")).toBeUndefined();
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/Europe/Paris\n<x>")).toBeUndefined();
    expect(zoneFromLocaltimeLink("/usr/share/zoneinfo/")).toBeUndefined();
  });

  it("answers what ICU answers on this machine", () => {
    expect(localTimeZone({})).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone);
  });
});
