// API keys (owners, D73): create, the secret shown once, list, revoke.
import { h, table, fmtDate, field, select, formValues, submitting, copyButton, confirmDialog, errorBox, badge } from '../dom.js';
import { get, post, del } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const [keys, domains] = await Promise.all([get('/api-keys'), get('/domains').catch(() => ({ domains: [] }))]);
  const secretBox = h('div', { id: 'new-secret' });
  const form = h('form', { class: 'card', id: 'key-form' },
    h('h2', {}, t('keys.create')),
    h('div', { class: 'fields' },
      field(t('name'), h('input', { name: 'name', required: true, maxlength: 100 })),
      field(t('keys.mode'), select('mode', [['live', t('mode.live')], ['test', t('mode.test')]], 'live')),
      field(t('keys.permission'), select('permission', [['full_access', t('keys.full')], ['sending_access', t('keys.sending')]], 'full_access')),
      field(t('keys.domain'), select('domainId', [['', t('keys.anyDomain')]].concat((domains.domains || []).map(d => [d.id, d.name])), ''))),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('keys.create'))));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      if (!v.domainId) delete v.domainId;
      const k = await post('/api-keys', v);
      form.reset();
      const code = h('code', { class: 'secret', id: 'secret-value' }, k.secret);
      secretBox.replaceChildren(h('div', { class: 'card highlight', role: 'status' },
        h('h2', {}, t('keys.created', { name: k.name })),
        h('p', {}, t('keys.shownOnce')),
        h('div', { class: 'copyline' }, code, copyButton(k.secret)),
        h('button', { type: 'button', class: 'secondary', onclick: () => secretBox.replaceChildren() }, t('keys.done'))));
      await drawList();
    });
  });
  const list = h('div', { id: 'key-list' });
  const drawList = async () => {
    const data = await get('/api-keys');
    list.replaceChildren(table([
      { label: t('name'), cell: k => k.name },
      { label: t('keys.mode'), cell: k => t('mode.' + k.mode, k.mode) },
      { label: t('keys.permission'), cell: k => k.permission === 'sending_access' ? t('keys.sending') : t('keys.full') },
      { label: t('keys.lastUsed'), cell: k => fmtDate(k.lastUsedAt) },
      { label: t('emails.created'), cell: k => fmtDate(k.createdAt) },
      { label: t('emails.status'), cell: k => k.revokedAt ? badge('revoked') : badge('active') },
      { label: t('actions'), cell: k => k.revokedAt ? '' : h('button', { type: 'button', class: 'danger small', 'aria-label': t('keys.revoke') + ' ' + k.name, onclick: async ev => {
        if (!await confirmDialog(t('keys.revokeConfirm', { name: k.name }), t('keys.revoke'))) return;
        try { await del('/api-keys/' + k.id); await drawList(); } catch (err) { ev.target.after(errorBox(err)); }
      } }, t('keys.revoke')) },
    ], data.data || [], t('keys.none')));
  };
  ctx.main.append(h('h1', {}, t('nav.keys')), secretBox, form, h('h2', {}, t('keys.list')), list);
  void keys;
  await drawList();
}
