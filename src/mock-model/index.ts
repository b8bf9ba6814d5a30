/**
 * The scripted model server (`tandem mock-model`), part of the product: tests and
 * `tandem demo` drive Tandem against it over real HTTP. See docs/mock-model.md.
 */
export { type MockModelCommandOptions, runMockModelCommand } from "./command.js";
export {
  loadScriptFile,
  MockModelScriptError,
  type ParsedScript,
  parseScript,
  type Script,
  type Step,
} from "./script.js";
export * as Scripts from "./scripts.js";
export { type MockModel, type MockModelOptions, startMockModel } from "./server.js";
