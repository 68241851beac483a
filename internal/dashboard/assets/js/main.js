// The dashboard's entry: reads the session, draws the shell (navigation,
// live/test switch, language, logout) and routes paths under /dashboard/
// to the page modules, which are loaded on first use.
import { h } from './dom.js';
import { get, post, patch, setCSRF, mode, setMode, onUnauthorized } from './api.js';
import { t, lang, loadLang, initialLang, rememberLang, LANGS } from './i18n.js';

const BASE = '/dashboard/';

const routes = [
  [/^$/, 'overview'],
  [/^login$/, 'login', { public: true }],
  [/^setup\/([^/]+)$/, 'setup', { public: true }],
  [/^emails$/, 'emails'],
  [/^emails\/([^/]+)$/, 'email'],
  [/^domains$/, 'domains'],
  [/^domains\/([^/]+)$/, 'domain'],
  [/^api-keys$/, 'keys'],
  [/^webhooks$/, 'webhooks'],
  [/^webhooks\/([^/]+)$/, 'webhook'],
  [/^audiences$/, 'audiences'],
  [/^audiences\/([^/]+)$/, 'audience'],
  [/^broadcasts$/, 'broadcasts'],
  [/^broadcasts\/([^/]+)$/, 'broadcast'],
  [/^senders$/, 'senders'],
  [/^suppressions$/, 'suppressions'],
  [/^templates$/, 'templates'],
  [/^templates\/([^/]+)$/, 'template'],
  [/^settings$/, 'settings'],
];

// The sections in the navigation, most used first.
const nav = [
  ['', 'nav.overview'], ['emails', 'nav.emails'], ['domains', 'nav.domains'], ['api-keys', 'nav.keys', 'owner'],
  ['webhooks', 'nav.webhooks'], ['audiences', 'nav.audiences'], ['broadcasts', 'nav.broadcasts'],
  ['templates', 'nav.templates'], ['senders', 'nav.senders'], ['suppressions', 'nav.suppressions'], ['settings', 'nav.settings'],
];

const session = { me: null };
let leaveHandlers = [];
let renderSeq = 0;

export function navigate(path, replace) {
  const url = BASE + path.replace(/^\/+/, '').replace(/^dashboard\//, '');
  if (replace) history.replaceState(null, '', url); else history.pushState(null, '', url);
  route();
}

function leave() {
  for (const fn of leaveHandlers) { try { fn(); } catch { /* a page's cleanup must not stop the next */ } }
  leaveHandlers = [];
}

async function route() {
  leave();
  const seq = ++renderSeq;
  const rest = decodeURI(location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '').replace(/\/+$/, '');
  let found = null;
  for (const [re, name, opts] of routes) {
    const m = rest.match(re);
    if (m) { found = { name, params: m.slice(1), opts: opts || {} }; break; }
  }
  if (!found) found = { name: 'notfound', params: [], opts: { public: true } };
  if (!found.opts.public && !session.me) {
    navigate('login?next=' + encodeURIComponent(rest), true);
    return;
  }
  if (found.name === 'login' && session.me) { navigate('', true); return; }
  drawShell(found.opts.public && !session.me, rest);
  const main = document.getElementById('main');
  // Pages append optional parts as `cond ? el : null`; the DOM's append
  // would write "null".
  main.append = (...xs) => Element.prototype.append.apply(main, xs.filter(x => x !== null && x !== undefined && x !== false));
  main.replaceChildren(h('p', { class: 'muted' }, t('loading')));
  try {
    const mod = await import('./pages/' + found.name + '.js');
    if (seq !== renderSeq) return;
    main.replaceChildren();
    await mod.render({
      main, params: found.params, me: session.me, navigate, query: new URLSearchParams(location.search),
      onLeave: fn => leaveHandlers.push(fn), current: () => seq === renderSeq, setSession,
    });
  } catch (err) {
    if (seq !== renderSeq) return;
    if (err && err.status === 401) return;
    main.replaceChildren(h('div', { class: 'error', role: 'alert' }, err && err.message ? err.message : String(err)));
  }
  if (seq === renderSeq) {
    const h1 = main.querySelector('h1');
    document.title = (h1 ? h1.textContent + ' · ' : '') + 'Carteiro';
    main.focus({ preventScroll: true });
  }
}

// setSession records a login (or, with null, a logout).
export async function setSession(data) {
  session.me = data ? data.user : null;
  setCSRF(data ? data.csrfToken : '');
  if (data && data.user && data.user.language && data.user.language !== lang()) {
    rememberLang(data.user.language);
    await loadLang(data.user.language);
  }
}

function drawShell(bare, rest) {
  const app = document.getElementById('app');
  app.className = bare ? 'bare' : 'shell';
  const main = document.getElementById('main') || h('main', { id: 'main', tabindex: '-1' });
  if (bare) { app.replaceChildren(h('a', { class: 'skip', href: '#main' }, t('skip')), main); return; }
  const me = session.me;
  const section = rest.split('/')[0];
  const menu = h('nav', { id: 'nav', 'aria-label': t('nav.label') },
    h('ul', {}, nav.filter(([, , role]) => !role || me.role === role).map(([path, key]) =>
      h('li', {}, h('a', { href: BASE + path, 'aria-current': section === path ? 'page' : null }, t(key))))));
  const toggle = h('button', { type: 'button', class: 'menu-toggle secondary', 'aria-expanded': 'false', 'aria-controls': 'nav' }, t('menu'));
  toggle.addEventListener('click', () => {
    const open = app.classList.toggle('nav-open');
    toggle.setAttribute('aria-expanded', String(open));
  });
  const modeSel = h('select', { id: 'mode-switch', 'aria-label': t('mode.label') },
    h('option', { value: 'live', selected: mode() === 'live' ? true : null }, t('mode.live')),
    h('option', { value: 'test', selected: mode() === 'test' ? true : null }, t('mode.test')));
  modeSel.addEventListener('change', () => { setMode(modeSel.value); route(); });
  const langSel = h('select', { id: 'lang-switch', 'aria-label': t('language') },
    LANGS.map(([c, name]) => h('option', { value: c, selected: c === lang() ? true : null }, name)));
  langSel.addEventListener('change', async () => {
    rememberLang(langSel.value);
    await loadLang(langSel.value);
    // Saved before the page changes language, so that once the user sees
    // it the choice is theirs on every browser; a page left at once would
    // otherwise cancel the save.
    try { await patch('/me', { language: langSel.value }); } catch { /* kept in this browser anyway */ }
    route();
  });
  const logout = h('button', { type: 'button', class: 'secondary', id: 'logout' }, t('logout'));
  logout.addEventListener('click', async () => {
    try { await post('/logout'); } catch { /* the session may be gone already */ }
    await setSession(null);
    navigate('login');
  });
  const header = h('header', { class: 'top' + (mode() === 'test' ? ' test-mode' : '') },
    h('a', { class: 'brand', href: BASE }, 'Carteiro'),
    h('span', { class: 'org' }, me.organizationName || ''),
    toggle,
    h('div', { class: 'tools' }, modeSel, langSel, h('span', { class: 'who' }, me.email), logout));
  app.replaceChildren(h('a', { class: 'skip', href: '#main' }, t('skip')), header, menu, main);
}

// Links inside the dashboard change the page without reloading it.
document.addEventListener('click', e => {
  const a = e.target.closest && e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || a.target) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(BASE) || url.pathname.startsWith(BASE + 'assets/') ||
      url.pathname.startsWith(BASE + 'viewer/')) return;
  e.preventDefault();
  document.getElementById('app').classList.remove('nav-open');
  navigate(url.pathname.slice(BASE.length) + url.search);
});
window.addEventListener('popstate', route);

onUnauthorized(async () => {
  if (!session.me) return;
  await setSession(null);
  navigate('login', true);
});

async function boot() {
  await loadLang(initialLang());
  try {
    await setSession(await get('/me', { allowUnauthorized: true }));
  } catch {
    await setSession(null);
  }
  document.getElementById('app').classList.remove('loading');
  route();
}

boot();
