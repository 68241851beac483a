// `npm run check:generated`: fails when src/schema.ts is not what
// `npm run generate` makes of docs/openapi.yaml today.
import { committed, regenerate } from "./generated.mjs";

if ((await regenerate()) !== (await committed())) {
  console.error("src/schema.ts is stale: run `npm run generate` in sdk/typescript and commit it");
  process.exit(1);
}
console.log("src/schema.ts matches docs/openapi.yaml");
