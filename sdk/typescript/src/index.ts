export { Carteiro, unwrap } from "./client.js";
export type {
  Audience,
  BatchItemResult,
  Broadcast,
  CarteiroOptions,
  Contact,
  Email,
  InboundEmail,
  ListBroadcastsQuery,
  ListEmailsQuery,
  ListInboundEmailsQuery,
  ListSuppressionsQuery,
  SendEmailRequest,
  SendEmailResult,
  SendResult,
  Suppression,
} from "./client.js";
export { CarteiroError, parseRetryAfter, type ErrorCode } from "./errors.js";
export { cursorItems, offsetItems } from "./pages.js";
export { defaultRetryOptions, retryingFetch, type RetryOptions } from "./retry.js";
export {
  standardKey,
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type HeadersLike,
  type VerifyOptions,
  type WebhookEvent,
} from "./webhooks.js";
export type { components, operations, paths } from "./schema.js";
