// Runs in every engine before the React Email runtime: the few browser APIs
// React's streaming server renderer and render() need, a task queue the Go
// side drains after each render, and guards for the limits (D37). After the
// runtime loads, lockdown() freezes what one render could otherwise change
// for the next one.
(function (global) {
  "use strict";
  var tasks = [];
  function schedule(fn, args) {
    if (typeof fn === "function") tasks.push(function () { fn.apply(undefined, args); });
    return tasks.length;
  }

  global.setTimeout = function (fn) { return schedule(fn, Array.prototype.slice.call(arguments, 2)); };
  global.setImmediate = global.setTimeout;
  global.clearTimeout = function () {};
  global.clearImmediate = function () {};
  global.queueMicrotask = function (fn) { Promise.resolve().then(fn); };

  function MessagePort() { this.onmessage = null; this.other = null; }
  MessagePort.prototype.postMessage = function (data) {
    var target = this.other;
    schedule(function () { if (typeof target.onmessage === "function") target.onmessage({ data: data }); }, []);
  };
  MessagePort.prototype.close = function () {};
  global.MessageChannel = function MessageChannel() {
    this.port1 = new MessagePort();
    this.port2 = new MessagePort();
    this.port1.other = this.port2;
    this.port2.other = this.port1;
  };

  // React's Bun build sizes what it writes in UTF-8 bytes
  // (runtime/bun-prelude.js); a loop over the characters in the engine
  // cost about a millisecond a render. Fixed, so no template can change it
  // for the next render.
  Object.defineProperty(global, "__carteiroByteLength", { value: global.__goByteLength, writable: false, configurable: false, enumerable: false });
  delete global.__goByteLength;
  var encode = global.__goEncode, decode = global.__goDecode, atob = global.__goAtob;
  delete global.__goEncode;
  delete global.__goDecode;
  delete global.__goAtob;
  // atob decodes base64 into a binary string (entities' decode tables).
  global.atob = function (s) { return atob(String(s)); };
  global.TextEncoder = function TextEncoder() { this.encoding = "utf-8"; };
  global.TextEncoder.prototype.encode = function (s) {
    return new Uint8Array(encode(s === undefined ? "" : String(s)));
  };
  global.TextDecoder = function TextDecoder() { this.encoding = "utf-8"; };
  global.TextDecoder.prototype.decode = function (bytes) {
    if (bytes === undefined) return "";
    return decode(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };

  // AbortController is only constructed when render() gets a signal; the
  // minimal shape keeps that path from throwing.
  global.AbortController = function AbortController() {
    this.signal = { aborted: false, reason: undefined, addEventListener: function () {} };
  };
  global.AbortController.prototype.abort = function (reason) {
    this.signal.aborted = true;
    this.signal.reason = reason;
  };

  // ReadableStream and WritableStream as React's renderer and render()'s
  // readStream use them: a pull source that enqueues byte chunks or, as a
  // "direct" stream, writes strings, and pipeTo into a sink whose write
  // collects them.
  global.ReadableStream = function ReadableStream(source) {
    var stream = this;
    this._sink = null;
    this._queue = [];
    this._closed = false;
    this._error = undefined;
    this._settle = null;
    this._text = [];
    this._controller = {
      enqueue: function (chunk) {
        if (stream._sink) stream._sink.write(chunk); else stream._queue.push(chunk);
      },
      close: function () { stream._closed = true; stream._finish(); },
      // A "direct" stream (React's Bun build, see runtime/bun-prelude.js)
      // writes strings; they are joined and reach the sink as one chunk of
      // bytes when the stream ends.
      write: function (text) { stream._text.push(text); },
      flush: function () {},
      end: function () { stream._controller.close(); },
      error: function (e) { stream._error = e === undefined ? new Error("stream errored") : e; stream._finish(); },
      desiredSize: 0,
      byobRequest: null,
    };
    this._source = source || {};
    if (typeof this._source.start === "function") this._source.start(this._controller);
  };
  global.ReadableStream.prototype._finish = function () {
    if (!this._settle) return;
    if (this._text.length > 0 && this._error === undefined) {
      var text = this._text.join("");
      this._text = [];
      this._sink.write(new global.TextEncoder().encode(text));
    }
    var settle = this._settle;
    this._settle = null;
    if (this._error !== undefined) {
      if (this._sink && typeof this._sink.abort === "function") {
        try { this._sink.abort(this._error); } catch (e) { /* the error below is what counts */ }
      }
      settle.reject(this._error);
    } else {
      if (this._sink && typeof this._sink.close === "function") this._sink.close();
      settle.resolve();
    }
  };
  global.ReadableStream.prototype.pipeTo = function (writable) {
    var stream = this;
    return new Promise(function (resolve, reject) {
      stream._settle = { resolve: resolve, reject: reject };
      stream._sink = writable._sink;
      var queued = stream._queue;
      stream._queue = [];
      for (var i = 0; i < queued.length; i++) stream._sink.write(queued[i]);
      if (stream._closed || stream._error !== undefined) { stream._finish(); return; }
      if (typeof stream._source.pull === "function") stream._source.pull(stream._controller);
    });
  };
  global.WritableStream = function WritableStream(sink) { this._sink = sink || {}; };

  // structuredClone for Tailwind, which clones plain data: objects,
  // arrays, Map, Set, Date and primitives.
  global.structuredClone = function clone(v, seen) {
    if (v === null || typeof v !== "object") return v;
    seen = seen || new Map();
    if (seen.has(v)) return seen.get(v);
    var out;
    if (Array.isArray(v)) {
      out = [];
      seen.set(v, out);
      for (var i = 0; i < v.length; i++) out[i] = clone(v[i], seen);
    } else if (v instanceof Map) {
      out = new Map();
      seen.set(v, out);
      v.forEach(function (val, key) { out.set(clone(key, seen), clone(val, seen)); });
    } else if (v instanceof Set) {
      out = new Set();
      seen.set(v, out);
      v.forEach(function (val) { out.add(clone(val, seen)); });
    } else if (v instanceof Date) {
      out = new Date(v.getTime());
    } else {
      out = {};
      seen.set(v, out);
      Object.keys(v).forEach(function (k) { out[k] = clone(v[k], seen); });
    }
    return out;
  };

  global.performance = { now: function () { return Date.now(); } };
  var noop = function () {};
  global.console = { log: noop, info: noop, warn: noop, error: noop, debug: noop, trace: noop };

  // Guards for the single calls that can allocate gigabytes at once; the Go
  // side watches the heap for the rest.
  var maxChars = global.__maxStringChars;
  delete global.__maxStringChars;
  // A document over the output cap is refused (the Go side checks its
  // bytes); its plain text is not worth converting first.
  var maxOutputChars = global.__maxOutputChars;
  delete global.__maxOutputChars;
  function guard(name, size) {
    var original = String.prototype[name];
    String.prototype[name] = function () {
      if (size(String(this), arguments) > maxChars) throw new RangeError("String." + name + ": result over the render's memory limit");
      return original.apply(this, arguments);
    };
  }
  guard("repeat", function (s, args) { return s.length * Number(args[0]); });
  guard("padStart", function (s, args) { return Number(args[0]); });
  guard("padEnd", function (s, args) { return Number(args[0]); });

  function describe(e) {
    if (e && typeof e === "object" && typeof e.message === "string") return (e.name ? e.name + ": " : "") + e.message;
    return String(e);
  }

  global.__carteiro = {
    // render starts rendering element props into state; the Go side runs
    // queued tasks until state.done.
    render: function (component, propsJSON, wantText) {
      var rt = global.__carteiroRuntime;
      var state = { done: false, html: "", text: "", error: "" };
      var element = rt.React.createElement(component, JSON.parse(propsJSON));
      rt.render(element).then(function (html) {
        state.html = html;
        if (wantText && !(maxOutputChars > 0 && html.length > maxOutputChars)) state.text = rt.toPlainText(html);
        state.done = true;
      }, function (e) {
        state.error = describe(e);
        state.done = true;
      });
      return state;
    },
    // format starts Prettier on source (the formatter's engine only); a
    // syntax error leaves its position in state.line and state.column.
    format: function (source) {
      var state = { done: false, html: "", text: "", error: "", line: 0, column: 0 };
      global.__carteiroPrettier.format(source).then(function (out) {
        state.html = out;
        state.done = true;
      }, function (e) {
        state.error = describe(e);
        if (e && e.loc && e.loc.start) {
          state.line = e.loc.start.line;
          state.column = e.loc.start.column;
        }
        state.done = true;
      });
      return state;
    },
    // runTask runs the oldest queued task; false when there is none.
    runTask: function () {
      var task = tasks.shift();
      if (!task) return false;
      task();
      return true;
    },
    // reset drops what a failed render left queued.
    reset: function () { tasks.length = 0; },
    // load runs a compiled template module and returns its default export.
    // extensions holds the loaded extensions' exports, read by the hook
    // templates call for them.
    load: function (factory, extensions) {
      var module = { exports: {} };
      factory(module, module.exports, function (ext, name) {
        if (!extensions[ext]) throw new Error(ext + " is not loaded");
        return extensions[ext][name];
      });
      var component = module.exports && module.exports.default;
      if (typeof component !== "function") throw new TypeError("the template has no default export that is a component");
      return component;
    },
    // loadExtension runs an extension's module function and freezes what
    // it exports.
    loadExtension: function (factory) {
      var module = { exports: {} };
      factory(module, module.exports);
      Object.keys(module.exports).forEach(function (k) { Object.freeze(module.exports[k]); });
      return Object.freeze(module.exports);
    },
    // warmTailwind renders a one-class element through Tailwind, so its
    // first-use setup (about 0.4 s) is not charged to a customer's render.
    warmTailwind: function (tailwind) {
      var React = global.__carteiroRuntime.React, c = global.__carteiroRuntime.components, h = React.createElement;
      var Warm = function () {
        return h(c.Html, null, h(tailwind.Tailwind, null, h(c.Head, null),
          h(c.Body, { className: "bg-white p-1 text-sm sm:p-2 hover:underline" }, "warm")));
      };
      return global.__carteiro.render(Warm, "{}", false);
    },
    describe: describe,
    lockdown: function () {
      var rt = global.__carteiroRuntime;
      if (rt) {
        Object.keys(rt.components).forEach(function (k) { Object.freeze(rt.components[k]); });
        [rt.components, rt.jsxRuntime, rt.React, rt].forEach(Object.freeze);
      }
      [global.__carteiro, rt && rt.codeBlock,
        Object.prototype, Array.prototype, Function.prototype, String.prototype, Number.prototype,
        Boolean.prototype, Promise.prototype, Map.prototype, Set.prototype, RegExp.prototype,
        Date.prototype, Object, Array, Promise, JSON, Math, Reflect,
      ].forEach(Object.freeze);
      Object.freeze(global);
    },
  };
})(globalThis);
