import { h, table, fmtDate, link, field, submitting, formValues } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const data = await get('/audiences?limit=200');
  const form = h('form', { class: 'card inline', id: 'audience-form' },
    field(t('name'), h('input', { name: 'name', required: true })),
    field(t('webhooks.description'), h('input', { name: 'description' })),
    h('button', { type: 'submit' }, t('audiences.create')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      const a = await post('/audiences', v.description ? v : { name: v.name });
      ctx.navigate('audiences/' + a.id);
    });
  });
  ctx.main.append(h('h1', {}, t('nav.audiences')), form, table([
    { label: t('name'), cell: a => link('audiences/' + a.id, a.name) },
    { label: t('audiences.contacts'), cell: a => String(a.contactsCount) },
    { label: t('emails.created'), cell: a => fmtDate(a.createdAt) },
  ], data.audiences || [], t('audiences.none')));
}
