/**
 * `npm run bench`: prints figures for Tandem's hot paths on this machine. Nothing here is
 * asserted; targets are printed beside the figures for the reader.
 */
import {
  coldStart,
  loopOverheadHttp,
  loopOverheadInProcess,
  manyPending,
  patchApply,
  questionRoundTrip,
  requestBuild,
  sandboxCost,
} from "./core.js";

process.stdout.write(`Tandem benchmarks — node ${process.version}, ${new Date().toISOString()}\n\n`);
coldStart(); // first, before the other benchmarks leave the machine warm and busy
{
  const { execPeakRss, importCosts, versionVsNode } = await import("./speed.js");
  versionVsNode();
  importCosts();
  await execPeakRss();
  const { readmeBreakdown } = await import("./readme-breakdown.js");
  await readmeBreakdown();
}
await loopOverheadHttp();
await loopOverheadHttp(250, "websocket");
await loopOverheadInProcess();
requestBuild();
await questionRoundTrip();
await manyPending();
await sandboxCost();
await patchApply();
const { questionRoundTripStdio } = await import("../test/helpers/app-server-bench.js");
await questionRoundTripStdio();
{
  const { httpQuestionRoundTrip, sseFanout } = await import("./http.js");
  const { runtimeFor } = await import("./core.js");
  const { fmt, line, median, quantile } = await import("./stats.js");
  const model = { async *stream() {} };
  const rt = runtimeFor(model as never);
  const t = await httpQuestionRoundTrip(rt);
  line(
    `question round trip over HTTP + SSE (n=${t.length})`,
    `p50 ${fmt(median(t))} p99 ${fmt(quantile(t, 0.99))}`,
    "p50 < 5 ms",
  );
  const f = await sseFanout(rt, { subscribers: 100 });
  line(
    "SSE fan-out: 100 subscribers on one busy thread",
    `${Math.round(f.eventsPerSecond).toLocaleString()} events/s delivered`,
  );
  await rt.shutdown();
}
{
  const { mcpStartup } = await import("./mcp.js");
  await mcpStartup();
}
{
  const { webBundleSize } = await import("../src/surfaces/http/web/size.js");
  const { line } = await import("./stats.js");
  const w = webBundleSize();
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  line(
    "web app: first load, gzipped (index.html, script, styles)",
    w.firstLoad ? `${kb(w.firstLoad)}; lazy chunks ${kb(w.lazy)}` : "not built (npm run build)",
    "< 150 KB",
  );
}
{
  const { benchRender, benchOpen } = await import("./tui.js");
  const { fmt, line } = await import("./stats.js");
  const fast = await benchRender(5000);
  line("TUI: render 5,000 streamed tokens, as fast as they come", `${fmt(fast.ms)}, ${fast.frames} frames`);
  const paced = await benchRender(5000, { ratePerSec: 1000 });
  line(
    "TUI: 5,000 tokens at 1,000 tokens/s",
    `${fmt(paced.ms)}, ${paced.frames} frames, Ink ${fmt(paced.renderMs)}`,
  );
  const open = await benchOpen(2000);
  line("TUI: open a resumed thread of 2,000 items", fmt(open.ms));
  const { tuiLaunchFigures } = await import("./tui-launch.js");
  await tuiLaunchFigures();
}
{
  const { longSession, resumeCompacted } = await import("./compaction.js");
  await longSession();
  await resumeCompacted();
  const { longExec } = await import("./long-exec.js");
  await longExec();
}
{
  const { checkpointFigures } = await import("./checkpoints.js");
  await checkpointFigures();
}
{
  const { mentionFigures } = await import("./mentions.js");
  await mentionFigures();
}
{
  const { agentFigures } = await import("./agents.js");
  await agentFigures();
}
{
  const { threadFigures } = await import("./threads.js");
  await threadFigures();
}
{
  const { bigRepoFigures } = await import("./bigrepo.js");
  await bigRepoFigures(100_000, 3);
}
{
  // Scale-out (docs/scale-out.md): three real nodes on postgres + nats-server; skipped where absent.
  const { clusterBench } = await import("./cluster.js");
  await clusterBench();
}
