// Suppressions: search, add, reactivate, delete.
import { h, table, fmtDate, field, select, submitting, formValues, badge, confirmDialog, errorBox } from '../dom.js';
import { get, post, del, qs } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const q = ctx.query;
  const search = h('form', { class: 'filters', role: 'search', 'aria-label': t('suppressions.search') },
    field(t('email'), h('input', { name: 'email', type: 'search', value: q.get('email') || '' })),
    // No "all": the API lists one status at a time, active when none is
    // given, so an "all" choice showed only the active ones.
    field(t('emails.status'), select('status', [['active', t('status.active')], ['expired', t('status.expired', 'expired')], ['inactive', t('status.inactive', 'inactive')]], q.get('status') || 'active')),
    field(t('suppressions.reason'), select('reason', [['', t('all')]].concat(['manual', 'bounce', 'isp_block', 'mailbox_not_found', 'complaint', 'unsubscribe'].map(r => [r, t('reason.' + r, r)])), q.get('reason') || '')),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('filter'))));
  search.addEventListener('submit', e => { e.preventDefault(); ctx.navigate('suppressions' + qs(formValues(search))); });
  const list = h('div');
  let cursor = null;
  let rows = [];
  const more = h('button', { type: 'button', class: 'secondary', hidden: true }, t('loadMore'));
  const load = async after => get('/suppressions' + qs({ email: q.get('email'), status: q.get('status'), reason: q.get('reason'), after, limit: 100 }));
  const draw = () => {
    list.replaceChildren(table([
      { label: t('email'), cell: s => s.email },
      { label: t('suppressions.reason'), cell: s => t('reason.' + s.reason, s.reason) },
      { label: t('suppressions.source'), cell: s => s.source },
      { label: t('emails.status'), cell: s => badge(s.status) },
      { label: t('suppressions.expires'), cell: s => fmtDate(s.expiresAt) },
      { label: t('emails.created'), cell: s => fmtDate(s.createdAt) },
      { label: t('actions'), cell: s => h('div', { class: 'actions' },
        s.status === 'active' ? h('button', { type: 'button', class: 'secondary small', 'aria-label': t('suppressions.reactivate') + ' ' + s.email, onclick: async ev => {
          try { await post('/suppressions/' + s.id + '/reactivate'); await reload(); } catch (err) { ev.target.after(errorBox(err)); }
        } }, t('suppressions.reactivate')) : null,
        h('button', { type: 'button', class: 'danger small', 'aria-label': t('delete') + ' ' + s.email, onclick: async ev => {
          if (!await confirmDialog(t('suppressions.deleteConfirm', { email: s.email }), t('delete'))) return;
          try { await del('/suppressions/' + s.id); await reload(); } catch (err) { ev.target.after(errorBox(err)); }
        } }, t('delete'))) },
    ], rows, t('suppressions.none')));
    more.hidden = !cursor;
  };
  const reload = async () => { const d = await load(); rows = d.suppressions || []; cursor = d.nextCursor; draw(); };
  more.addEventListener('click', async () => { const d = await load(cursor); rows = rows.concat(d.suppressions || []); cursor = d.nextCursor; draw(); });
  const add = h('form', { class: 'card inline', id: 'suppression-form' },
    field(t('email'), h('input', { name: 'email', type: 'email', required: true })),
    field(t('suppressions.reason'), select('reason', ['manual', 'bounce', 'complaint'].map(r => [r, t('reason.' + r, r)]), 'manual')),
    h('button', { type: 'submit' }, t('suppressions.add')));
  add.addEventListener('submit', e => {
    e.preventDefault();
    submitting(add, async () => { await post('/suppressions', formValues(add)); add.reset(); await reload(); });
  });
  ctx.main.append(h('h1', {}, t('nav.suppressions')), add, search, list, more);
  await reload();
}
