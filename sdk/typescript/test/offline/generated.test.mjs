// The committed types are what openapi-typescript makes of the served
// description today (issue 29: regenerating changes nothing).
import assert from "node:assert/strict";
import { test } from "node:test";

import { committed, regenerate } from "../../scripts/generated.mjs";

test("src/schema.ts is regenerated from docs/openapi.yaml without a change", async () => {
  const [want, got] = [await regenerate(), await committed()];
  assert.ok(want === got, "src/schema.ts is stale: run `npm run generate` in sdk/typescript and commit it");
});

test("SendEmailRequest is an object type and variables take any JSON value", async () => {
  const schema = await committed();
  const start = schema.indexOf("        SendEmailRequest: {");
  assert.notEqual(start, -1, "SendEmailRequest is not generated as an object type");
  const end = schema.indexOf("\n        };", start);
  const body = schema.slice(start, end + 11);
  assert.doesNotMatch(body, /\| unknown/, "SendEmailRequest widened to unknown (an anyOf/oneOf generators cannot type)");
  assert.doesNotMatch(schema, /variables\?: Record<string, never>/, "variables generated as an object that takes no key");
  assert.doesNotMatch(schema, /details: Record<string, never>/, "error details generated as an object that takes no key");
});
