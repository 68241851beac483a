// Prettier's standalone build with its TypeScript and estree plugins, which
// Carteiro embeds to pretty-print React Email sources (POST
// /templates/format) keeping comments and types. bundle.go turns this file
// into formatter.js.
import { format } from "prettier/standalone";
import * as typescript from "prettier/plugins/typescript";
import * as estree from "prettier/plugins/estree";

globalThis.__carteiroPrettier = {
  format: (source) => format(source, { parser: "typescript", filepath: "template.tsx", plugins: [typescript, estree] }),
};
