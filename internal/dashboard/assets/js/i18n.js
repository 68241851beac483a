// Languages of the dashboard (D73): the browser's Accept-Language (which
// the server writes into <html lang>) until the user chooses one; the
// choice is kept with the user (PATCH /me) and in this browser.
export const LANGS = [['pt-BR', 'Português (Brasil)'], ['en', 'English'], ['es', 'Español']];

let current = 'pt-BR';
let dict = {};
let fallback = {};

export function lang() { return current; }

export async function loadLang(wanted) {
  const code = LANGS.some(([c]) => c === wanted) ? wanted : 'pt-BR';
  const [d, f] = await Promise.all([fetchDict(code), code === 'en' ? null : fetchDict('en')]);
  current = code;
  dict = d;
  fallback = f || d;
  document.documentElement.lang = code;
}

async function fetchDict(code) {
  const res = await fetch('/dashboard/assets/i18n/' + code + '.json');
  return res.ok ? res.json() : {};
}

// initialLang: the user's choice in this browser, else <html lang>.
export function initialLang() {
  return localStorage.getItem('carteiro.lang') || document.documentElement.lang || 'pt-BR';
}

export function rememberLang(code) { localStorage.setItem('carteiro.lang', code); }

// t looks a message up; {name} placeholders take values from vars.
export function t(key, def, vars) {
  if (def && typeof def === 'object') { vars = def; def = undefined; }
  let s = dict[key] ?? fallback[key] ?? def ?? key;
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  return s;
}
