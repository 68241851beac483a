// Called by reference.go with pairs of (compiled module, output prefix):
// renders each with its <prefix>.props.json as props, to <prefix>.html
// (render()) and <prefix>.txt (render() with plainText).
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createElement } from "react";
import { render } from "@react-email/render";

const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const mod = await import(pathToFileURL(resolve(args[i])).href);
  const prefix = args[i + 1];
  const props = JSON.parse(readFileSync(prefix + ".props.json", "utf8"));
  const element = createElement(mod.default, props);
  writeFileSync(prefix + ".html", await render(element));
  writeFileSync(prefix + ".txt", await render(element, { plainText: true }));
  console.log("rendered", prefix);
}
