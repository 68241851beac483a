// Prepended by bundle.go to React's Bun build of its server renderer, which
// runtime.js gives @react-email/render for react-dom/server. The Bun build
// is React's one streaming renderer that writes strings: the browser build
// encodes every piece of markup into a Uint8Array and copies it into
// 2 KB views, and in goja that byte work cost more than the rendering
// (every typed-array property read parses its name as an index). The
// markup is the same (both builds share React's DOM configuration), and
// reference_test.go holds the output to Node's. What the Bun build takes
// from Bun's globals is defined here; setup.js's ReadableStream serves its
// "direct" stream.
var Buffer = {
  // byteLength counts UTF-8 bytes, as React sizes the segments it writes;
  // setup.js defines the function (in Go: a loop here cost a millisecond
  // a render).
  byteLength: function (s) {
    return globalThis.__carteiroByteLength(String(s));
  },
};
var Bun = {
  // Only form actions (useActionState with a permalink) hash; an email has
  // no forms to post back.
  hash: function () {
    throw new Error("form actions are not supported in email templates");
  },
};
