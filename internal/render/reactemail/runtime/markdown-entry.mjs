// React Email's Markdown component (marked), loaded into an engine only
// when a template imports it. bundle.go turns this file into markdown.js.
export { Markdown } from "@react-email/markdown";
