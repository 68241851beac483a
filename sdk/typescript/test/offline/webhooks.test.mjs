// Webhook verification on fixed vectors; e2e/sdk_typescript_test.go also
// verifies real deliveries the server made (test/live).
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";

import { standardKey, verifyServiceSignature, verifyStandardWebhook, verifyWebhook, WebhookVerificationError } from "../../dist/index.js";

// The test vector of the Standard Webhooks libraries.
const vector = {
  secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
  id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
  timestamp: "1614265330",
  body: '{"test": 2432232314}',
  signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
};
const at = new Date(Number(vector.timestamp) * 1000);
const standardHeaders = (over = {}) => ({
  "webhook-id": vector.id,
  "webhook-timestamp": vector.timestamp,
  "webhook-signature": vector.signature,
  ...over,
});

test("the Standard Webhooks test vector verifies", () => {
  assert.deepEqual(verifyStandardWebhook(vector.body, standardHeaders(), vector.secret, { now: at }), { test: 2432232314 });
  // Also through fetch's Headers and among several signatures.
  const h = new Headers(standardHeaders({ "webhook-signature": `v1,bm90IGl0 ${vector.signature}` }));
  assert.deepEqual(verifyWebhook(Buffer.from(vector.body), h, vector.secret, { now: at }), { test: 2432232314 });
});

test("a changed byte, another secret, an old timestamp or a missing header are refused", () => {
  const refuses = (fn, why) => assert.throws(fn, WebhookVerificationError, why);
  refuses(() => verifyStandardWebhook(vector.body.replace("2432", "2433"), standardHeaders(), vector.secret, { now: at }), "changed body");
  refuses(() => verifyStandardWebhook(vector.body, standardHeaders(), "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", { now: at }), "other secret");
  refuses(() => verifyStandardWebhook(vector.body, standardHeaders(), vector.secret, { now: new Date(at.getTime() + 301_000) }), "too old");
  refuses(() => verifyStandardWebhook(vector.body, standardHeaders({ "webhook-id": "msg_other" }), vector.secret, { now: at }), "other id");
  refuses(() => verifyStandardWebhook(vector.body, { "webhook-id": vector.id, "webhook-signature": vector.signature }, vector.secret, { now: at }), "no timestamp");
  refuses(() => verifyStandardWebhook(vector.body, standardHeaders({ "webhook-signature": vector.signature.replace("v1,", "v2,") }), vector.secret, { now: at }), "unknown version");
});

test("a secret that is not whsec_<base64> keys with its own bytes (D76)", () => {
  assert.deepEqual(standardKey("s3cret-s3cret-s3cret"), Buffer.from("s3cret-s3cret-s3cret"));
  assert.deepEqual(standardKey("whsec_not base64!"), Buffer.from("whsec_not base64!"));
  assert.equal(standardKey(vector.secret).length, 24);
});

test("Carteiro's own X-Service-Signature-V2 verifies (D48)", () => {
  const secret = "s3cret-s3cret-s3cret";
  const body = '{"id":"ev1","type":"email.sent","createdAt":"2026-01-01T00:00:00Z","data":{}}';
  const ts = "1767225600";
  const hex = createHmac("sha256", secret).update(`${ts}.${body}`).digest("hex");
  const headers = { "X-Service-Signature-V2": `t=${ts},v1=${hex}` };
  const now = new Date(Number(ts) * 1000 + 10_000);
  assert.equal(verifyServiceSignature(body, headers, secret, { now }).id, "ev1");
  assert.equal(verifyWebhook(body, headers, secret, { now }).type, "email.sent");
  assert.throws(() => verifyServiceSignature(body.replace("ev1", "ev2"), headers, secret, { now }), WebhookVerificationError);
  assert.throws(() => verifyServiceSignature(body, headers, secret, { now: new Date(now.getTime() + 600_000) }), WebhookVerificationError);
  assert.throws(() => verifyWebhook(body, {}, secret, { now }), WebhookVerificationError);
});
