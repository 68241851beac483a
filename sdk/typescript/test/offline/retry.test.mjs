// Retries against a scripted HTTP server on 127.0.0.1: what is retried,
// what is not, and that Retry-After is honoured.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import { Carteiro, CarteiroError } from "../../dist/index.js";

let server;
let baseUrl;
let script = [];
let seen = [];

before(async () => {
  server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const next = script.shift() ?? { status: 500, body: envelope("INTERNAL_ERROR") };
      res.writeHead(next.status, { "Content-Type": "application/json", "X-Request-Id": `req-${seen.length}`, ...next.headers });
      res.end(next.body === undefined ? undefined : JSON.stringify(next.body));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${server.address().port}`;
});

after(() => new Promise((resolve) => server.close(resolve)));

function envelope(code, details = {}) {
  return { error: { code, message: code.toLowerCase(), details } };
}

function client(retry = {}) {
  return new Carteiro({ apiKey: "k_test", baseUrl, retry: { baseDelayMs: 1, ...retry } });
}

const queued = { id: "00000000-0000-4000-8000-000000000001", status: "queued", queuedAt: "2026-01-01T00:00:00Z" };
const email = { from: "a@example.com", to: "b@example.com", subject: "s", text: "t" };

function reset(steps) {
  script = steps;
  seen = [];
}

test("a GET is retried after 503 and 500, then answers", async () => {
  reset([
    { status: 503, headers: { "Retry-After": "0" }, body: envelope("SERVICE_UNAVAILABLE") },
    { status: 500, body: envelope("INTERNAL_ERROR") },
    { status: 200, body: { ...queued, status: "sent" } },
  ]);
  const { data } = await client().api.GET("/emails/{id}", { params: { path: { id: queued.id } } });
  assert.equal(data.status, "sent");
  assert.equal(seen.length, 3);
  assert.ok(seen.every((r) => r.headers.authorization === "Bearer k_test"));
});

test("a send carries an idempotency key and is retried after a 500 with the same key and body", async () => {
  reset([{ status: 500, body: envelope("INTERNAL_ERROR") }, { status: 202, headers: { "Idempotent-Replayed": "true" }, body: queued }]);
  const result = await client().sendEmail(email);
  assert.equal(result.id, queued.id);
  assert.equal(result.replayed, true);
  assert.equal(seen.length, 2);
  const key = seen[0].headers["idempotency-key"];
  assert.match(key, /^[0-9a-f-]{36}$/);
  assert.equal(seen[1].headers["idempotency-key"], key);
  assert.equal(seen[1].body, seen[0].body);
  assert.deepEqual(JSON.parse(seen[0].body), email);
});

test("a given idempotency key is the one sent", async () => {
  reset([{ status: 202, body: queued }]);
  await client().sendEmail(email, { idempotencyKey: "order-42" });
  assert.equal(seen[0].headers["idempotency-key"], "order-42");
});

test("a POST without an idempotency key is not repeated after a 500", async () => {
  reset([{ status: 500, body: envelope("INTERNAL_ERROR", { requestId: "r-500" }) }, { status: 201, body: {} }]);
  await assert.rejects(
    client().api.POST("/audiences", { body: { name: "x" } }),
    (err) => err instanceof CarteiroError && err.status === 500 && err.code === "INTERNAL_ERROR",
  );
  assert.equal(seen.length, 1);
});

test("a 429 is retried after its Retry-After, for any method", async () => {
  reset([
    { status: 429, headers: { "Retry-After": "1" }, body: envelope("RATE_LIMIT_EXCEEDED") },
    { status: 201, body: { id: "a1", name: "x" } },
  ]);
  const started = Date.now();
  const { data } = await client().api.POST("/audiences", { body: { name: "x" } });
  assert.equal(data.id, "a1");
  assert.equal(seen.length, 2);
  assert.ok(Date.now() - started >= 950, `retried after ${Date.now() - started} ms, before Retry-After`);
});

test("a Retry-After beyond the longest wait is not waited for", async () => {
  reset([{ status: 429, headers: { "Retry-After": "3600" }, body: envelope("WARMUP_QUOTA_EXCEEDED", { dailyQuota: 50 }) }]);
  await assert.rejects(client().sendEmail(email), (err) => err.status === 429 && err.code === "WARMUP_QUOTA_EXCEEDED" && err.retryAfter === 3600);
  assert.equal(seen.length, 1);
});

test("retries stop after maxRetries", async () => {
  reset([]);
  await assert.rejects(client({ maxRetries: 3 }).api.GET("/domains"), (err) => err.status === 500);
  assert.equal(seen.length, 4);
});

test("a batch gives each item a key, so that it is retried whole", async () => {
  reset([
    { status: 502, body: envelope("INTERNAL_ERROR") },
    { status: 200, body: [{ ok: true, data: queued }, { ok: false, error: "DOMAIN_NOT_VERIFIED: no" }] },
  ]);
  const results = await client().sendEmailBatch([email, { ...email, idempotencyKey: "mine" }]);
  assert.equal(results.length, 2);
  assert.equal(results[0].ok, true);
  assert.equal(seen.length, 2);
  const items = JSON.parse(seen[0].body);
  assert.match(items[0].idempotencyKey, /^[0-9a-f-]{36}$/);
  assert.equal(items[1].idempotencyKey, "mine");
  assert.equal(seen[1].body, seen[0].body);
  assert.equal(seen[0].headers["x-carteiro-client-retry-safe"], undefined, "the client's own marker reached the server");
});

test("list iteration follows nextCursor until null", async () => {
  const mk = (n) => ({ id: `e${n}` });
  reset([
    { status: 200, body: { emails: [mk(1), mk(2)], nextCursor: "c1" } },
    { status: 200, body: { emails: [mk(3)], nextCursor: null } },
  ]);
  const ids = [];
  for await (const e of client().listEmails({ limit: 2, tag: "kind:welcome" })) {
    ids.push(e.id);
  }
  assert.deepEqual(ids, ["e1", "e2", "e3"]);
  assert.equal(new URL(seen[0].url, baseUrl).searchParams.get("after"), null);
  assert.equal(new URL(seen[1].url, baseUrl).searchParams.get("after"), "c1");
  assert.equal(new URL(seen[1].url, baseUrl).searchParams.get("limit"), "2");
});
