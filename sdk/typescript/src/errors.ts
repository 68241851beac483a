import type { components } from "./schema.js";

/** The stable error codes of the API (D9, D11). */
export type ErrorCode = components["schemas"]["ErrorCode"];

/**
 * An error answer of the Carteiro API, read from its envelope
 * `{"error": {"code", "message", "details"}}` (D9). `code` is stable and
 * meant for programs; `message` is localized (D10) and meant for people.
 */
export class CarteiroError extends Error {
  /** The HTTP status, such as 422. */
  readonly status: number;
  /** The stable code, such as `VALIDATION_ERROR`. */
  readonly code: ErrorCode | string;
  /** The envelope's details, `{}` when there is nothing to add. */
  readonly details: Record<string, unknown>;
  /** For a 422: the JSON path of the field at fault, such as `to[2]` (D11). */
  readonly field: string | undefined;
  /** For a 422: why the field was refused, such as `invalid_email`. */
  readonly reason: string | undefined;
  /** The X-Request-Id of the answer, to quote when reporting a problem. */
  readonly requestId: string | undefined;
  /** Seconds the server asked to wait (Retry-After), on 429 and 503. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    super(init.message);
    this.name = "CarteiroError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? {};
    this.field = typeof this.details.field === "string" ? this.details.field : undefined;
    this.reason = typeof this.details.reason === "string" ? this.details.reason : undefined;
    this.requestId = init.requestId ?? (typeof this.details.requestId === "string" ? this.details.requestId : undefined);
    this.retryAfter = init.retryAfter;
  }

  /**
   * Reads an error answer. A body that is not the envelope (a proxy's HTML
   * page, say) still gives an error, with code `HTTP_<status>`.
   */
  static async fromResponse(response: Response): Promise<CarteiroError> {
    const requestId = response.headers.get("X-Request-Id") ?? undefined;
    const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
    let text = "";
    try {
      text = await response.text();
    } catch {
      // The body could not be read; the status still says what happened.
    }
    try {
      const parsed: unknown = JSON.parse(text);
      const error = (parsed as { error?: unknown } | null)?.error as
        | { code?: unknown; message?: unknown; details?: unknown }
        | undefined;
      if (error && typeof error.code === "string" && typeof error.message === "string") {
        const details =
          error.details && typeof error.details === "object" && !Array.isArray(error.details)
            ? (error.details as Record<string, unknown>)
            : {};
        return new CarteiroError({ status: response.status, code: error.code, message: error.message, details, requestId, retryAfter });
      }
    } catch {
      // Not JSON: fall through to the generic error below.
    }
    return new CarteiroError({
      status: response.status,
      code: `HTTP_${response.status}`,
      message: `HTTP ${response.status} ${response.statusText}`.trim(),
      requestId,
      retryAfter,
    });
  }
}

/**
 * Retry-After as seconds: a whole number of seconds, or an HTTP date
 * (RFC 9110 section 10.2.3). Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === "") {
    return undefined;
  }
  const v = value.trim();
  if (/^\d+$/.test(v)) {
    return Number.parseInt(v, 10);
  }
  const at = Date.parse(v);
  if (Number.isNaN(at)) {
    return undefined;
  }
  return Math.max(0, Math.ceil((at - now) / 1000));
}
