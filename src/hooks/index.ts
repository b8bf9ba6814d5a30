export { decide, fireHooks, type HookDecision, selectHooks } from "./engine.js";
export { loadHooks, PROJECT_FILES } from "./loader.js";
export { hookToolName, toolNames } from "./match.js";
export { deepLink, type Notification, notificationFor, notifyPayload } from "./notify.js";
export { runHook } from "./run.js";
export { createToolHooks, type ToolHooksHost } from "./tool-hooks.js";
export { createTrustStore, TRUST_FILE, type TrustStore } from "./trust.js";
export * from "./types.js";
