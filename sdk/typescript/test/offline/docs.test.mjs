// docs/sdk.md shows the tour with this client; the code must be the code
// that `npm run typecheck` compiles (test-types/tour.ts), so that the
// documentation cannot show a call that does not type-check.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

test("every TypeScript block of docs/sdk.md is type-checked in test-types/tour.ts", async () => {
  const doc = await readFile(new URL("../../../../docs/sdk.md", import.meta.url), "utf8");
  const tour = await readFile(new URL("../../test-types/tour.ts", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("\n## TypeScript"));
  const end = section.indexOf("\n## ", 1);
  const blocks = [...(end === -1 ? section : section.slice(0, end)).matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.ok(blocks.length >= 8, `only ${blocks.length} TypeScript blocks in docs/sdk.md`);
  for (const block of blocks) {
    assert.ok(tour.includes(block), `docs/sdk.md shows code that test-types/tour.ts does not hold:\n${block}`);
  }
});
