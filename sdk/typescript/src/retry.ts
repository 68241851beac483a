import { parseRetryAfter } from "./errors.js";

/** How the client retries (see {@link retryingFetch}). */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. */
  maxRetries: number;
  /**
   * The longest wait the client accepts. A Retry-After beyond it (a warmup
   * quota that resets at midnight, D34) is not waited for: the error is
   * returned at once.
   */
  maxDelayMs: number;
  /** The first backoff when the server gives no Retry-After; doubles per retry. */
  baseDelayMs: number;
}

export const defaultRetryOptions: RetryOptions = { maxRetries: 2, maxDelayMs: 30_000, baseDelayMs: 500 };

/** Methods whose repetition has the effect of one call (RFC 9110 section 9.2.2). */
const idempotentMethods = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);

/**
 * Wraps fetch so that it retries what is safe to retry:
 * - 429 and 503 for every request: the server did nothing and says when to
 *   come back (Retry-After, D11, D13);
 * - 500, 502, 504 and network errors only for requests whose repetition does
 *   no harm: idempotent methods, requests with an Idempotency-Key (D22), and
 *   those isSafe marks (a batch whose every item has its own key).
 * It waits Retry-After when given, else an exponential backoff with jitter.
 */
export function retryingFetch(
  fetchImpl: (input: Request) => Promise<Response>,
  options: RetryOptions,
  isSafe: (request: Request) => boolean = () => false,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): (input: Request) => Promise<Response> {
  return async (request: Request) => {
    const repeatable =
      idempotentMethods.has(request.method.toUpperCase()) || request.headers.has("Idempotency-Key") || isSafe(request);
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.maxRetries;
      // A Request's body can be read once: every attempt but the last sends a copy.
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await fetchImpl(sent);
      } catch (err) {
        if (last || !repeatable || request.signal.aborted) {
          throw err;
        }
        await sleep(backoff(options, attempt));
        continue;
      }
      const status = response.status;
      const nothingDone = status === 429 || status === 503;
      const mayRetry = nothingDone || (repeatable && (status === 500 || status === 502 || status === 504));
      if (last || !mayRetry) {
        return response;
      }
      const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
      const delay = retryAfter !== undefined ? retryAfter * 1000 : backoff(options, attempt);
      if (delay > options.maxDelayMs) {
        return response;
      }
      // Free the connection of the answer we drop.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  };
}

function backoff(options: RetryOptions, attempt: number): number {
  const exp = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  // Full jitter over the upper half, so that clients refused together spread out.
  return Math.round(exp / 2 + (Math.random() * exp) / 2);
}
