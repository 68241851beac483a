import { h, table, fmtDate, link, field, submitting, formValues, badge } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const data = await get('/domains');
  const form = h('form', { class: 'card inline', id: 'domain-form' },
    field(t('domains.name'), h('input', { name: 'name', required: true, placeholder: 'mail.example.com' })),
    h('button', { type: 'submit' }, t('domains.add')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const d = await post('/domains', formValues(form));
      ctx.navigate('domains/' + d.id);
    });
  });
  ctx.main.append(h('h1', {}, t('nav.domains')), form, table([
    { label: t('domains.name'), cell: d => link('domains/' + d.id, d.name) },
    { label: t('emails.status'), cell: d => badge(d.status) },
    { label: t('domains.lastCheck'), cell: d => fmtDate(d.lastCheckAt) },
    { label: t('emails.created'), cell: d => fmtDate(d.createdAt) },
  ], data.domains || [], t('domains.none')));
}
