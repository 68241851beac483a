import { h, table, fmtDate, link, field, submitting, formValues, badge } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

export const EVENTS = ['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'email.opened', 'email.clicked',
  'email.failed', 'email.suppressed', 'email.delivery_delayed', 'email.received'];

export function eventBoxes(selected) {
  return h('fieldset', { class: 'events' }, h('legend', {}, t('webhooks.events')),
    EVENTS.map(ev => h('label', { class: 'check' },
      h('input', { type: 'checkbox', name: 'ev-' + ev, value: ev, 'data-group': 'events', checked: selected.includes(ev) }), ' ', ev)));
}

export async function render(ctx) {
  const data = await get('/webhooks');
  const secretBox = h('div');
  const form = h('form', { class: 'card', id: 'webhook-form' },
    h('h2', {}, t('webhooks.create')),
    h('div', { class: 'fields' },
      field(t('webhooks.url'), h('input', { name: 'url', type: 'url', required: true, placeholder: 'https://' })),
      field(t('webhooks.description'), h('input', { name: 'description' })),
      field(t('webhooks.secret'), h('input', { name: 'secret', autocomplete: 'off' }), t('webhooks.secretHint'))),
    eventBoxes(['email.delivered', 'email.bounced', 'email.complained']),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('webhooks.create'))));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      const body = { url: v.url, events: v.events };
      if (v.description) body.description = v.description;
      if (v.secret) body.secret = v.secret;
      const wh = await post('/webhooks', body);
      ctx.navigate('webhooks/' + wh.id);
    });
  });
  ctx.main.append(h('h1', {}, t('nav.webhooks')), secretBox, form, table([
    { label: t('webhooks.url'), cell: w => link('webhooks/' + w.id, w.url) },
    { label: t('webhooks.events'), cell: w => (w.events || []).join(', ') },
    { label: t('emails.status'), cell: w => badge(w.status) },
    { label: t('emails.created'), cell: w => fmtDate(w.createdAt) },
  ], data.webhooks || [], t('webhooks.none')));
}
