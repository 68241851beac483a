import { createHmac, timingSafeEqual } from "node:crypto";

import type { components } from "./schema.js";

/** The body of a webhook request (D47). */
export type WebhookEvent = components["schemas"]["WebhookEvent"];

/** Request headers as fetch (`Headers`) or node:http (`IncomingHttpHeaders`) give them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/** A webhook request that is not proven to come from Carteiro: refuse it (401 or 400). */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

export interface VerifyOptions {
  /** How far the request's timestamp may be from now, in seconds; 300 by default (D48). */
  toleranceSeconds?: number;
  /** The current time, for tests. */
  now?: Date;
}

const defaultTolerance = 300;

/**
 * Verifies a webhook request and returns its event. It checks the Standard
 * Webhooks signature (D76: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) when the request has one, else Carteiro's own
 * (D48: `X-Service-Signature-V2`). Pass the raw body exactly as received:
 * parsed and re-serialized JSON no longer matches the signature.
 *
 * @throws {WebhookVerificationError} when a header is missing, the
 *   signature does not match, or the timestamp is out of tolerance.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: HeadersLike,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  if (header(headers, "webhook-signature") !== undefined) {
    return verifyStandardWebhook(body, headers, secret, options);
  }
  return verifyServiceSignature(body, headers, secret, options);
}

/**
 * Verifies the Standard Webhooks signature (D76), as the official libraries
 * do: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` among the
 * space-separated signatures of `webhook-signature`, keyed with the bytes
 * after `whsec_` (base64) or, for any other secret, with the secret itself.
 */
export function verifyStandardWebhook(
  body: string | Uint8Array,
  headers: HeadersLike,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const id = required(headers, "webhook-id");
  const timestamp = required(headers, "webhook-timestamp");
  const signatures = required(headers, "webhook-signature");
  checkTimestamp(timestamp, options);
  const raw = bytes(body);
  const expected = createHmac("sha256", standardKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(raw)
    .digest();
  const matches = signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    return version === "v1" && signature !== undefined && equal(Buffer.from(signature, "base64"), expected);
  });
  if (!matches) {
    throw new WebhookVerificationError("webhook-signature does not match the body");
  }
  return parse(raw);
}

/**
 * Verifies Carteiro's own signature (D48): `X-Service-Signature-V2:
 * t=<timestamp>,v1=<hex HMAC-SHA256 of "<timestamp>.<body>">`, keyed with
 * the secret's bytes.
 */
export function verifyServiceSignature(
  body: string | Uint8Array,
  headers: HeadersLike,
  secret: string,
  options: VerifyOptions = {},
): WebhookEvent {
  const v2 = required(headers, "x-service-signature-v2");
  const parts = new Map<string, string[]>();
  for (const item of v2.split(",")) {
    const at = item.indexOf("=");
    if (at > 0) {
      const key = item.slice(0, at).trim();
      parts.set(key, [...(parts.get(key) ?? []), item.slice(at + 1).trim()]);
    }
  }
  const timestamp = parts.get("t")?.[0];
  if (timestamp === undefined) {
    throw new WebhookVerificationError("X-Service-Signature-V2 has no t=");
  }
  checkTimestamp(timestamp, options);
  const raw = bytes(body);
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(`${timestamp}.`).update(raw).digest();
  const matches = (parts.get("v1") ?? []).some((hex) => /^[0-9a-f]{64}$/.test(hex) && equal(Buffer.from(hex, "hex"), expected));
  if (!matches) {
    throw new WebhookVerificationError("X-Service-Signature-V2 does not match the body");
  }
  return parse(raw);
}

/**
 * The HMAC key of D76: `whsec_<base64>` means the bytes it encodes (strict
 * standard base64, as the server and the official Go library read it); any
 * other secret is used byte for byte.
 */
export function standardKey(secret: string): Buffer {
  if (secret.startsWith("whsec_")) {
    const rest = secret.slice("whsec_".length);
    if (rest.length > 0 && rest.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(rest)) {
      const key = Buffer.from(rest, "base64");
      if (key.length > 0) {
        return key;
      }
    }
  }
  return Buffer.from(secret, "utf8");
}

function header(headers: HeadersLike, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") {
    return (headers as Headers).get(name) ?? undefined;
  }
  const record = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value.join(", ") : value;
}

function required(headers: HeadersLike, name: string): string {
  const value = header(headers, name);
  if (value === undefined || value === "") {
    throw new WebhookVerificationError(`missing header ${name}`);
  }
  return value;
}

function checkTimestamp(value: string, options: VerifyOptions): void {
  if (!/^\d+$/.test(value)) {
    throw new WebhookVerificationError(`timestamp ${JSON.stringify(value)} is not Unix seconds`);
  }
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? defaultTolerance;
  if (Math.abs(now - Number(value)) > tolerance) {
    throw new WebhookVerificationError(`timestamp ${value} is more than ${tolerance} s from now`);
  }
}

function bytes(body: string | Uint8Array): Buffer {
  return typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

function parse(raw: Buffer): WebhookEvent {
  try {
    return JSON.parse(raw.toString("utf8")) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError("the signed body is not JSON");
  }
}
