/**
 * OpenAI-style error vocabulary used by the mock server: the HTTP error body
 * `{error:{message,type,code}}`, the `type` that goes with a status or code, and the
 * default messages of scripted `failed` faults (shaped like the real service's, so clients
 * can classify them and parse "try again in Ns").
 */

export interface WireError {
  error: { message: string; type: string; code: string | null };
}

export function errorBody(message: string, type: string, code: string | null = null): WireError {
  return { error: { message, type, code } };
}

/** The OpenAI error `type` that goes with an error `code`. */
export function errorTypeForCode(code: string): string {
  if (code === "rate_limit_exceeded") return "requests";
  if (code === "insufficient_quota") return "insufficient_quota";
  if (code === "server_error" || code === "server_is_overloaded") return "server_error";
  return "invalid_request_error";
}

/** Default `{type, code, message}` of an HTTP error status. */
export function httpErrorDefaults(status: number): { type: string; code: string | null; message: string } {
  if (status === 401) {
    return { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." };
  }
  if (status === 403) return { type: "permission_error", code: null, message: "Permission denied." };
  if (status === 404) return { type: "invalid_request_error", code: null, message: "Not found." };
  if (status === 429) {
    return {
      type: "requests",
      code: "rate_limit_exceeded",
      message: "Rate limit reached for mock-model. Please try again in 1s.",
    };
  }
  if (status === 503) {
    return { type: "server_error", code: "server_is_overloaded", message: "The server is overloaded." };
  }
  if (status >= 500) {
    return {
      type: "server_error",
      code: "server_error",
      message: "The server had an error processing your request.",
    };
  }
  return { type: "invalid_request_error", code: null, message: `mock-model: scripted HTTP ${status}.` };
}

/** Default message of a scripted `failed` fault with `code`. */
export function failedMessage(code: string): string {
  switch (code) {
    case "context_length_exceeded":
      return "Your input exceeds the context window of this model. Please adjust your input and try again.";
    case "rate_limit_exceeded":
      return "Rate limit reached for mock-model. Please try again in 1s.";
    case "insufficient_quota":
      return "You exceeded your current quota, please check your plan and billing details.";
    case "server_is_overloaded":
      return "The server is overloaded. Please try again later.";
    case "invalid_prompt":
      return "Invalid prompt: the prompt was flagged.";
    default:
      return "An error occurred while processing your request.";
  }
}
