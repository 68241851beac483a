// The client against a real Carteiro, started on SQLite and on PostgreSQL by
// e2e/sdk_typescript_test.go, which passes:
//   CARTEIRO_URL             the server's root URL (loopback)
//   CARTEIRO_KEY             a test-mode key (D7): sends are accepted, not delivered
//   CARTEIRO_LIVE_KEY        a live key of the same organization, for webhooks
//   CARTEIRO_HOOK_URL        an HTTPS receiver the server trusts
//   CARTEIRO_DELIVERIES_URL  answers what that receiver captured, as JSON
//   CARTEIRO_INBOUND_DOMAIN  a domain with inbound on (D75) that has received two
//                            replies, to support@ and then sales@, each with one attachment
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, test } from "node:test";

import { Carteiro, CarteiroError, unwrap, verifyServiceSignature, verifyStandardWebhook, verifyWebhook, WebhookVerificationError } from "../../dist/index.js";

function env(name) {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run these tests through e2e/sdk_typescript_test.go`);
  return value;
}

let client;
let live;
const run = randomUUID().slice(0, 8);
const from = "sender@sdk.example";

before(() => {
  client = new Carteiro({ apiKey: env("CARTEIRO_KEY"), baseUrl: env("CARTEIRO_URL"), acceptLanguage: "en" });
  live = new Carteiro({ apiKey: env("CARTEIRO_LIVE_KEY"), baseUrl: env("CARTEIRO_URL"), acceptLanguage: "en" });
});

test("a send is accepted, read back, and its key replays it once", async () => {
  const email = { from, to: ["ana@dest.example"], subject: `hello ${run}`, text: "Hi", tags: [{ name: "run", value: run }] };
  const first = await client.sendEmail(email, { idempotencyKey: `once-${run}` });
  assert.equal(first.status, "queued");
  assert.equal(first.replayed, false);
  const again = await client.sendEmail(email, { idempotencyKey: `once-${run}` });
  assert.equal(again.id, first.id, "the same key sent a second email");
  assert.equal(again.replayed, true);
  const read = await client.getEmail(first.id);
  assert.equal(read.subject, `hello ${run}`);
  assert.deepEqual(read.to, ["ana@dest.example"]);
  const raw = await unwrap(client.api.GET("/emails/{id}", { params: { path: { id: first.id } } }));
  assert.equal(raw.id, first.id);
});

test("the same key with another body is a typed 409", async () => {
  await client.sendEmail({ from, to: "a@dest.example", subject: "one", text: "1" }, { idempotencyKey: `reuse-${run}` });
  await assert.rejects(client.sendEmail({ from, to: "a@dest.example", subject: "two", text: "2" }, { idempotencyKey: `reuse-${run}` }), (err) => {
    assert.ok(err instanceof CarteiroError);
    assert.equal(err.status, 409);
    assert.equal(err.code, "IDEMPOTENCY_KEY_REUSED");
    return true;
  });
});

test("an invalid send throws a CarteiroError naming the field", async () => {
  await assert.rejects(client.sendEmail({ from, to: ["ok@dest.example", "not an address"], subject: "x", text: "x" }), (err) => {
    assert.ok(err instanceof CarteiroError, `not a CarteiroError: ${err}`);
    assert.equal(err.status, 422);
    assert.equal(err.code, "VALIDATION_ERROR");
    assert.equal(err.field, "to[1]");
    assert.equal(typeof err.reason, "string");
    assert.ok(err.requestId, "no request id");
    return true;
  });
  // A field the types refuse is refused by the server too (D12).
  await assert.rejects(client.sendEmail(/** @type {any} */ ({ fromm: from, to: "a@dest.example", text: "x" })), (err) => {
    assert.equal(err.status, 422);
    assert.equal(err.field, "fromm");
    return true;
  });
});

test("a wrong key is a typed 401", async () => {
  const stranger = new Carteiro({ apiKey: "re_not_a_key", baseUrl: env("CARTEIRO_URL") });
  await assert.rejects(stranger.api.GET("/domains"), (err) => err instanceof CarteiroError && err.status === 401 && err.code === "INVALID_API_KEY");
});

test("listEmails iterates every page, newest first, without repeats", async () => {
  const sent = [];
  for (let i = 0; i < 3; i++) {
    sent.push((await client.sendEmail({ from, to: "list@dest.example", subject: `list ${i}`, text: "x", tags: [{ name: "list", value: run }] })).id);
  }
  const pages = [];
  const seen = [];
  // limit 1 makes every email a page of its own: the iterator must follow the cursors.
  for await (const email of client.listEmails({ tag: `list:${run}`, limit: 1 })) {
    seen.push(email.id);
    pages.push(email.createdAt);
  }
  assert.deepEqual(new Set(seen), new Set(sent), `iterated ${seen}`);
  assert.equal(seen.length, 3, "an email came twice");
  assert.deepEqual([...pages].sort().reverse(), pages, "not newest first");
});

test("a batch answers one typed result per item", async () => {
  const results = await client.sendEmailBatch([
    { from, to: "b1@dest.example", subject: "b1", text: "x" },
    { from, to: "b2@dest.example", subject: "b2", html: "<p>x</p>" },
  ]);
  assert.equal(results.length, 2);
  for (const r of results) {
    assert.equal(r.ok, true, JSON.stringify(r));
    if (r.ok) {
      assert.equal(r.data.status, "queued");
    }
  }
});

test("webhook deliveries verify with both signatures and fail after a changed byte", async () => {
  const secret = `sdk-secret-${run}-0123456789`;
  const { data: hook } = await live.api.POST("/webhooks", {
    body: { url: env("CARTEIRO_HOOK_URL"), events: ["email.sent"], secret },
  });
  assert.ok(hook?.id);
  const check = async (key, eventId) => {
    const delivery = await waitForDelivery((d) => d.headers["webhook-id"] === eventId || (eventId === undefined && d.headers["webhook-id"]));
    const body = Buffer.from(delivery.body, "base64");
    const event = verifyWebhook(body, delivery.headers, key);
    assert.equal(verifyStandardWebhook(body, delivery.headers, key).id, event.id);
    assert.equal(verifyServiceSignature(body, delivery.headers, key).id, event.id);
    const changed = Buffer.from(body);
    changed[Math.floor(changed.length / 2)] ^= 1;
    assert.throws(() => verifyStandardWebhook(changed, delivery.headers, key), WebhookVerificationError);
    assert.throws(() => verifyServiceSignature(changed, delivery.headers, key), WebhookVerificationError);
    assert.throws(() => verifyWebhook(body, delivery.headers, `${key}x`), WebhookVerificationError);
    return event;
  };

  // A real email.sent of a test-mode send, signed with the customer's own secret.
  await client.sendEmail({ from, to: "hook@dest.example", subject: `hook ${run}`, text: "x" });
  const event = await check(secret, undefined);
  assert.equal(event.type, "email.sent");

  // A test event signed with a secret the service generated: whsec_<base64>, a decoded key (D76).
  const { data: rotated } = await live.api.POST("/webhooks/{id}/rotate-secret", { params: { path: { id: hook.id } } });
  assert.match(rotated.secret, /^whsec_/);
  const before = (await deliveries()).length;
  await live.api.POST("/webhooks/{id}/test", { params: { path: { id: hook.id } }, body: { eventType: "email.sent" } });
  const isTest = (d) => JSON.parse(Buffer.from(d.body, "base64").toString("utf8")).data?.test === true;
  const fresh = await waitForDelivery((d, i) => i >= before && isTest(d));
  const test = await check(rotated.secret, fresh.headers["webhook-id"]);
  assert.equal(test.data.test, true);
});

test("listInboundEmails follows the cursor, and a received message reads, downloads and deletes", async () => {
  const domain = env("CARTEIRO_INBOUND_DOMAIN");
  const received = [];
  // limit 1 makes every message a page of its own (D27).
  for await (const m of live.listInboundEmails({ toAddress: `@${domain}`, limit: 1 })) {
    received.push(m);
  }
  assert.deepEqual(received.map((m) => m.rcptTo[0]), [`sales@${domain}`, `support@${domain}`], "not the two replies, newest first");
  assert.equal("text" in received[0], false, "a listed message carries its bodies");

  const id = received[1].id;
  const detail = await unwrap(live.api.GET("/inbound-emails/{id}", { params: { path: { id } } }));
  assert.equal(detail.subject, "Re: Pedido nº 42");
  assert.equal(detail.html, "<p>Olá, obrigado pelo pedido.</p>");
  assert.equal(detail.attachments.length, 1);

  const raw = await unwrap(live.api.GET("/inbound-emails/{id}/raw", { params: { path: { id } }, parseAs: "text" }));
  assert.match(raw, /^From: /);
  assert.equal(Buffer.byteLength(raw), detail.size, "raw is not the message as received");
  const [att] = detail.attachments;
  const file = await unwrap(
    live.api.GET("/inbound-emails/{id}/attachments/{attachmentId}", { params: { path: { id, attachmentId: att.id } }, parseAs: "arrayBuffer" }),
  );
  assert.equal(Buffer.from(file).toString("latin1"), "%PDF-1.4 nota fiscal");
  assert.equal(file.byteLength, att.size);

  await live.api.DELETE("/inbound-emails/{id}", { params: { path: { id } } });
  await assert.rejects(live.api.GET("/inbound-emails/{id}", { params: { path: { id } } }), (err) => err instanceof CarteiroError && err.status === 404);
});

async function deliveries() {
  const response = await fetch(env("CARTEIRO_DELIVERIES_URL"));
  assert.equal(response.status, 200);
  return response.json();
}

async function waitForDelivery(match) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await deliveries()).find(match);
    if (found) {
      return found;
    }
    assert.ok(Date.now() < deadline, "no matching webhook delivery within 20 s");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
