// tsc over test-types/send.ts: valid sends compile, misspelled fields and
// wrong types do not (each is marked with an expect-error directive, which
// tsc reports as unused when the line compiles).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("../..", import.meta.url));

test("tsc accepts valid sends and rejects a misspelled field", () => {
  const tsc = spawnSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.typecheck.json"], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(tsc.status, 0, `tsc -p tsconfig.typecheck.json failed:\n${tsc.stdout}${tsc.stderr}`);
});
