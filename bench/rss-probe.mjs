// Preloaded into a benchmarked process (`node --import bench/rss-probe.mjs …`): on exit, writes
// `{"rssKiB":…,"cpuMs":…}` (peak RSS, user+system CPU time) to $TANDEM_RSS_OUT.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
  const out = process.env.TANDEM_RSS_OUT;
  if (!out) return;
  const u = process.resourceUsage();
  writeFileSync(out, JSON.stringify({ rssKiB: u.maxRSS, cpuMs: (u.userCPUTime + u.systemCPUTime) / 1000 }));
});
