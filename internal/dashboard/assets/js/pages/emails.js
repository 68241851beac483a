// The email log: the API's filters, cursor pages, and polling while open.
import { h, table, badge, fmtDate, link, field, select, formValues } from '../dom.js';
import { get, qs } from '../api.js';
import { t } from '../i18n.js';

const STATUSES = ['', 'queued', 'scheduled', 'processing', 'sent', 'delivered', 'bounced', 'complained', 'failed', 'skipped', 'cancelled'];
const POLL_MS = 5000;

export async function render(ctx) {
  const q = ctx.query;
  const filters = {
    status: q.get('status') || '', recipient: q.get('recipient') || '', fromEmail: q.get('fromEmail') || '',
    subjectContains: q.get('subjectContains') || '', tag: q.get('tag') || '', from: q.get('from') || '', to: q.get('to') || '',
  };
  const form = h('form', { class: 'filters', role: 'search', 'aria-label': t('emails.filters') },
    field(t('emails.status'), select('status', STATUSES.map(s => [s, s ? t('status.' + s, s) : t('all')]), filters.status)),
    field(t('emails.recipient'), h('input', { name: 'recipient', type: 'search', value: filters.recipient })),
    field(t('emails.sender'), h('input', { name: 'fromEmail', type: 'search', value: filters.fromEmail })),
    field(t('emails.subject'), h('input', { name: 'subjectContains', type: 'search', value: filters.subjectContains })),
    field(t('emails.tag'), h('input', { name: 'tag', type: 'search', value: filters.tag, placeholder: 'name:value' })),
    field(t('emails.fromDate'), h('input', { name: 'from', type: 'date', value: filters.from.slice(0, 10) })),
    field(t('emails.toDate'), h('input', { name: 'to', type: 'date', value: filters.to.slice(0, 10) })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('filter'))));
  form.addEventListener('submit', e => {
    e.preventDefault();
    const v = formValues(form);
    if (v.from) v.from = new Date(v.from + 'T00:00:00').toISOString();
    if (v.to) v.to = new Date(v.to + 'T23:59:59.999').toISOString();
    ctx.navigate('emails' + qs(v));
  });
  const live = h('p', { class: 'muted live', 'aria-live': 'polite' });
  const list = h('div', { id: 'email-log' });
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, t('loadMore'));
  ctx.main.append(h('h1', {}, t('nav.emails')), form, live, list, more);

  let rows = [];
  let cursor = null;
  let pages = 1;
  const draw = () => {
    list.replaceChildren(table([
      { label: t('emails.created'), cell: e => link('emails/' + e.id, fmtDate(e.createdAt)) },
      { label: t('emails.to'), cell: e => (e.to || []).join(', ') },
      { label: t('emails.subject'), cell: e => e.subject || '—' },
      { label: t('emails.status'), cell: e => badge(e.status) },
      { label: t('emails.from'), cell: e => e.from },
    ], rows, t('emails.none')));
    more.hidden = !cursor;
  };
  const load = async after => {
    const page = await get('/emails' + qs({ ...filters, after, limit: 50 }));
    return page;
  };
  const first = await load();
  rows = first.emails || [];
  cursor = first.nextCursor;
  draw();
  more.addEventListener('click', async () => {
    const page = await load(cursor);
    rows = rows.concat(page.emails || []);
    cursor = page.nextCursor;
    pages++;
    draw();
  });
  // Live updates: the first page is read again every few seconds while the
  // log is open; rows already shown keep their place, new ones come on top.
  const timer = setInterval(async () => {
    if (!ctx.current()) return;
    try {
      const page = await load();
      const fresh = page.emails || [];
      const byId = new Map(fresh.map(e => [e.id, e]));
      const known = new Set(rows.map(e => e.id));
      rows = fresh.filter(e => !known.has(e.id)).concat(rows.map(e => byId.get(e.id) || e));
      if (pages === 1) cursor = page.nextCursor;
      draw();
      live.textContent = t('emails.updated', { time: new Date().toLocaleTimeString() });
    } catch { /* the next tick tries again */ }
  }, POLL_MS);
  ctx.onLeave(() => clearInterval(timer));
}
