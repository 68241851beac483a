// The React Email runtime that Carteiro embeds: React, its JSX runtime, the
// official render() (browser build, which streams like React's own server
// renderer; bundle.go gives it React's Bun build of that renderer, which
// writes strings, see bun-prelude.js) and the layout components, on one
// global object. bundle.go turns this file into runtime.js; templates are
// compiled against it.
//
// Not included: Tailwind, Markdown and CodeBlock (Prism takes seconds to
// initialise in the engine), which tailwind.js, markdown.js and
// codeblock.js bring on demand.
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
import { render, plainTextSelectors } from "@react-email/render";
import { compile } from "html-to-text";
import { Body } from "@react-email/body";
import { Button } from "@react-email/button";
import { CodeInline } from "@react-email/code-inline";
import { Column } from "@react-email/column";
import { Container } from "@react-email/container";
import { Font } from "@react-email/font";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Hr } from "@react-email/hr";
import { Html } from "@react-email/html";
import { Img } from "@react-email/img";
import { Link } from "@react-email/link";
import { Preview } from "@react-email/preview";
import { Row } from "@react-email/row";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";

// render(element, { plainText: true }) renders the element again and
// converts it with html-to-text's convert(), which compiles its options on
// every call (most of the cost). This is the same conversion with the same
// options as @react-email/render's toPlainText, compiled once.
const toPlainText = compile({ wordwrap: false, selectors: [...plainTextSelectors] });

// CodeBlock lives in codeblock.js, loaded on demand; this stand-in is the
// identity templates and Tailwind see, and renders the real one. The engine
// takes setCodeBlock away from the global object before templates run.
let realCodeBlock = null;
const codeBlock = React.forwardRef(function CodeBlock(props, ref) {
  if (!realCodeBlock) throw new Error("CodeBlock is not loaded");
  return React.createElement(realCodeBlock, { ...props, ref });
});
function setCodeBlock(component) {
  if (!realCodeBlock) realCodeBlock = component;
}

globalThis.__carteiroRuntime = {
  codeBlock,
  setCodeBlock,
  React,
  jsxRuntime,
  render,
  toPlainText,
  components: {
    Body, Button, CodeInline, Column, Container, Font, Head, Heading, Hr, Html, Img, Link,
    Preview, Row, Section, Text,
  },
};
