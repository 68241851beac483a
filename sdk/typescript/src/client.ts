import { randomUUID } from "node:crypto";
import createClient, { type Client, type Middleware } from "openapi-fetch";

import { CarteiroError } from "./errors.js";
import { cursorItems, offsetItems } from "./pages.js";
import { defaultRetryOptions, retryingFetch, type RetryOptions } from "./retry.js";
import type { components, operations, paths } from "./schema.js";

type Schemas = components["schemas"];
export type SendEmailRequest = Schemas["SendEmailRequest"];
export type SendEmailResult = Schemas["SendEmailResult"];
export type BatchItemResult = Schemas["BatchItemResult"];
export type Email = Schemas["Email"];
export type Suppression = Schemas["Suppression"];
export type Broadcast = Schemas["Broadcast"];
export type Audience = Schemas["Audience"];
export type Contact = Schemas["Contact"];
export type InboundEmail = Schemas["InboundEmail"];

type QueryOf<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
export type ListEmailsQuery = Omit<QueryOf<"listEmails">, "after">;
export type ListSuppressionsQuery = Omit<QueryOf<"listSuppressions">, "after">;
export type ListBroadcastsQuery = Omit<QueryOf<"listBroadcasts">, "after">;
export type ListInboundEmailsQuery = Omit<QueryOf<"listInboundEmails">, "after">;

/** Settings of a {@link Carteiro} client. */
export interface CarteiroOptions {
  /** An API key (`Authorization: Bearer <key>`). */
  apiKey: string;
  /** The server's root URL, such as `https://mail.example.com`; the client adds `/v1/product`. */
  baseUrl: string;
  /** Language of error messages: pt-BR (the server's default), en or es (D10). */
  acceptLanguage?: string;
  /** Retries of 429/5xx answers; see {@link retryingFetch}. */
  retry?: Partial<RetryOptions>;
  /** The fetch to use; the global one by default. */
  fetch?: (input: Request) => Promise<Response>;
  /** Makes the idempotency keys of sends; random UUIDs by default. */
  newIdempotencyKey?: () => string;
}

/** What a send answered, and whether it was the replay of an earlier one (D22). */
export type SendResult = SendEmailResult & { replayed: boolean };

/**
 * A request header the client sets for itself and never sends: it marks a
 * request as safe to repeat although its method is not idempotent.
 */
const retrySafeMark = "X-Carteiro-Client-Retry-Safe";

/**
 * The Carteiro API client. `api` reaches every route with the types of
 * docs/openapi.yaml (openapi-fetch); the methods beside it add what a
 * generated client does not: idempotent sends, list iteration, and values
 * instead of `{data, error}` pairs. Error answers throw a
 * {@link CarteiroError} everywhere, `api` included.
 */
export class Carteiro {
  /** Every Product route, typed: `api.GET("/emails/{id}", {params: {path: {id}}})`. */
  readonly api: Client<paths>;
  readonly #newKey: () => string;

  constructor(options: CarteiroOptions) {
    if (!options.apiKey) {
      throw new TypeError("Carteiro: apiKey is required");
    }
    this.#newKey = options.newIdempotencyKey ?? randomUUID;
    const retrySafe = new WeakSet<Request>();
    const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, "") + "/v1/product",
      fetch: retryingFetch(baseFetch, { ...defaultRetryOptions, ...options.retry }, (r) => retrySafe.has(r)),
    });
    const auth: Middleware = {
      onRequest({ request }) {
        request.headers.set("Authorization", `Bearer ${options.apiKey}`);
        if (options.acceptLanguage) {
          request.headers.set("Accept-Language", options.acceptLanguage);
        }
        if (request.headers.has(retrySafeMark)) {
          request.headers.delete(retrySafeMark);
          retrySafe.add(request);
        }
        return request;
      },
      async onResponse({ response }) {
        if (!response.ok) {
          throw await CarteiroError.fromResponse(response);
        }
        return undefined;
      },
    };
    this.api.use(auth);
  }

  /**
   * Sends one email (POST /emails). Every call carries an idempotency key,
   * `options.idempotencyKey` or the body's `idempotencyKey` or a new one,
   * so that the retries after a lost answer or a 5xx send it once (D22).
   * `replayed` is true when the server answered an earlier call's response.
   */
  async sendEmail(email: SendEmailRequest, options: { idempotencyKey?: string } = {}): Promise<SendResult> {
    const key = options.idempotencyKey ?? email.idempotencyKey ?? this.#newKey();
    const { data, response } = await this.api.POST("/emails", {
      body: email,
      params: { header: { "Idempotency-Key": key } },
    });
    return { ...must(data, response), replayed: response.headers.get("Idempotent-Replayed") === "true" };
  }

  /**
   * Sends 1 to 100 emails (POST /emails/batch). Each item without an
   * `idempotencyKey` gets one, so that the whole call can be retried and
   * sends each email once (D22). One result per item, in order; a refused
   * item does not make the call fail (4.1).
   */
  async sendEmailBatch(emails: SendEmailRequest[]): Promise<BatchItemResult[]> {
    const body = emails.map((e) => (e.idempotencyKey ? e : { ...e, idempotencyKey: this.#newKey() }));
    const { data, response } = await this.api.POST("/emails/batch", {
      body,
      headers: { [retrySafeMark]: "1" },
    });
    return must(data, response);
  }

  /** GET /emails/{id}. */
  async getEmail(id: string): Promise<Email> {
    const { data, response } = await this.api.GET("/emails/{id}", { params: { path: { id } } });
    return must(data, response);
  }

  /** Every email matching the filters, newest first, page after page (D27). */
  listEmails(query: ListEmailsQuery = {}): AsyncGenerator<Email, void, undefined> {
    return cursorItems(async (after) => {
      const { data, response } = await this.api.GET("/emails", { params: { query: { ...query, after } } });
      const page = must(data, response);
      return { items: page.emails, nextCursor: page.nextCursor };
    });
  }

  /** Every suppression matching the filters, newest first (D27, D44). */
  listSuppressions(query: ListSuppressionsQuery = {}): AsyncGenerator<Suppression, void, undefined> {
    return cursorItems(async (after) => {
      const { data, response } = await this.api.GET("/suppressions", { params: { query: { ...query, after } } });
      const page = must(data, response);
      return { items: page.suppressions, nextCursor: page.nextCursor };
    });
  }

  /** Every broadcast matching the filters, newest first (D27). */
  listBroadcasts(query: ListBroadcastsQuery = {}): AsyncGenerator<Broadcast, void, undefined> {
    return cursorItems(async (after) => {
      const { data, response } = await this.api.GET("/broadcasts", { params: { query: { ...query, after } } });
      const page = must(data, response);
      return { items: page.broadcasts, nextCursor: page.nextCursor };
    });
  }

  /**
   * Every message received for the organization's inbound domains matching
   * the filters, newest first (D75, D27); without bodies, which
   * GET /inbound-emails/{id} has.
   */
  listInboundEmails(query: ListInboundEmailsQuery = {}): AsyncGenerator<InboundEmail, void, undefined> {
    return cursorItems(async (after) => {
      const { data, response } = await this.api.GET("/inbound-emails", { params: { query: { ...query, after } } });
      const page = must(data, response);
      return { items: page.inboundEmails, nextCursor: page.nextCursor };
    });
  }

  /** Every audience of the organization (4.4). */
  listAudiences(options: { pageSize?: number } = {}): AsyncGenerator<Audience, void, undefined> {
    return offsetItems(async (offset) => {
      const { data, response } = await this.api.GET("/audiences", {
        params: { query: { offset, limit: options.pageSize } },
      });
      const page = must(data, response);
      return { items: page.audiences, total: page.total };
    });
  }

  /** Every contact of an audience, oldest first (4.4). */
  listContacts(audienceId: string, options: { pageSize?: number } = {}): AsyncGenerator<Contact, void, undefined> {
    return offsetItems(async (offset) => {
      const { data, response } = await this.api.GET("/audiences/{id}/contacts", {
        params: { path: { id: audienceId }, query: { offset, limit: options.pageSize } },
      });
      const page = must(data, response);
      return { items: page.contacts, total: page.total };
    });
  }
}

/**
 * The data of a successful answer. The middleware throws on every error
 * answer, so a missing body here means the server answered 2xx without the
 * documented one.
 */
function must<T>(data: T | undefined, response: Response): T {
  if (data === undefined) {
    throw new CarteiroError({
      status: response.status,
      code: "UNEXPECTED_RESPONSE",
      message: `HTTP ${response.status} without the documented body`,
      requestId: response.headers.get("X-Request-Id") ?? undefined,
    });
  }
  return data;
}

/**
 * The data of an `api` call, for code that wants the value alone:
 * `const email = await unwrap(carteiro.api.GET("/emails/{id}", ...))`.
 * Error answers have thrown a {@link CarteiroError} already; a 204 gives
 * undefined.
 */
export async function unwrap<T>(pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await pending;
  if (error !== undefined) {
    // Only reached with a fetch that bypasses the client's middleware.
    throw await CarteiroError.fromResponse(response);
  }
  return data as T;
}
