/**
 * `npm run bench`: prints figures for Tandem's hot paths on this machine. Nothing here is
 * asserted; targets are printed beside the figures for the reader.
 */
import {
  coldStart,
  loopOverheadHttp,
  loopOverheadInProcess,
  manyPending,
  questionRoundTrip,
  requestBuild,
} from "./core.js";

process.stdout.write(`Tandem benchmarks — node ${process.version}, ${new Date().toISOString()}\n\n`);
await loopOverheadHttp();
await loopOverheadInProcess();
requestBuild();
coldStart();
await questionRoundTrip();
await manyPending();
await sandboxCost();
await patchApply();
const { questionRoundTripStdio } = await import("../test/app-server-bench.js");
await questionRoundTripStdio();
