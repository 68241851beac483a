// Renders every case of ../cases.json with handlebars.js and writes
// ../expected.json: {name: output} or {name: {error: message}}.
// Run: npm ci && node gen.js (go generate ./internal/render/handlebars).
'use strict';
const fs = require('fs');
const path = require('path');
const Handlebars = require('handlebars');

const cases = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'cases.json'), 'utf8'));
const out = {};
for (const c of cases) {
  const hb = Handlebars.create();
  // Carteiro prints a raw block's body whatever its name; the same as a
  // helper that returns options.fn().
  hb.registerHelper('raw', (options) => options.fn());
  try {
    const tpl = hb.compile(c.template, { noEscape: !!c.noEscape });
    out[c.name] = tpl(c.data === undefined ? {} : c.data);
  } catch (e) {
    out[c.name] = { error: String(e.message).split('\n')[0] };
  }
}
fs.writeFileSync(path.join(__dirname, '..', 'expected.json'), JSON.stringify(out, null, 1) + '\n');
console.log(`rendered ${cases.length} cases`);
