/**
 * The questions domain (requirements §4): the broker (pending questions, policies, cancellation,
 * persistence), the responder registry (Q3) and the per-thread secret store (Q10).
 * Request construction and the model's result live in `model.ts`; text replies in `text-reply.ts`.
 */
export * from "./broker.js";
export * from "./responders.js";
export * from "./secrets.js";
