// React Email's CodeBlock with Prism and its themes, loaded into an engine
// only when a template imports it: Prism takes seconds to start in the
// engine. bundle.go turns this file into codeblock.js.
export * from "@react-email/code-block";
