import assert from "node:assert/strict";
import { test } from "node:test";

import { CarteiroError, parseRetryAfter } from "../../dist/index.js";

test("an error envelope becomes a CarteiroError with its parts", async () => {
  const response = new Response(
    JSON.stringify({ error: { code: "VALIDATION_ERROR", message: "to[1] is invalid", details: { field: "to[1]", reason: "invalid_email" } } }),
    { status: 422, headers: { "Content-Type": "application/json", "X-Request-Id": "req-1" } },
  );
  const err = await CarteiroError.fromResponse(response);
  assert.ok(err instanceof Error);
  assert.equal(err.status, 422);
  assert.equal(err.code, "VALIDATION_ERROR");
  assert.equal(err.field, "to[1]");
  assert.equal(err.reason, "invalid_email");
  assert.equal(err.requestId, "req-1");
  assert.equal(err.message, "to[1] is invalid");
});

test("a body that is not the envelope still gives an error", async () => {
  const err = await CarteiroError.fromResponse(new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }));
  assert.equal(err.status, 502);
  assert.equal(err.code, "HTTP_502");
  assert.deepEqual(err.details, {});
});

test("Retry-After in seconds or as an HTTP date", () => {
  assert.equal(parseRetryAfter("7"), 7);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:10 GMT", now), 10);
});
