// Regenerates the types of src/schema.ts from docs/openapi.yaml in memory,
// exactly as `npm run generate` (the openapi-typescript CLI) writes them, so
// that a check can tell whether the committed file is stale.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

import openapiTS, { astToString, COMMENT_HEADER } from "openapi-typescript";

export const schemaFile = fileURLToPath(new URL("../src/schema.ts", import.meta.url));
export const descriptionFile = fileURLToPath(new URL("../../../docs/openapi.yaml", import.meta.url));

export async function regenerate() {
  // Defaults are what the server fills in, not what a request must carry:
  // with openapi-typescript's defaultNonNullable a field with a default
  // (isActive, sourceLocale) would be required in request bodies.
  const ast = await openapiTS(new URL(`file://${descriptionFile}`), { defaultNonNullable: false });
  return COMMENT_HEADER + astToString(ast);
}

export async function committed() {
  return readFile(schemaFile, "utf8");
}
