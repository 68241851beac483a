// Broadcasts: the list and the compose form (a template or own HTML, a
// preview for one contact, send now or schedule).
import { h, table, fmtDate, link, field, select, submitting, formValues, badge } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';
import { previewFrame } from './template.js';

export async function render(ctx) {
  const [list, auds, tpls] = await Promise.all([get('/broadcasts?limit=50'), get('/audiences?limit=200'), get('/templates').catch(() => ({ data: [] }))]);
  const audiences = auds.audiences || [];
  const templates = tpls.data || [];
  const html = h('textarea', { name: 'html', 'aria-describedby': 'html-hint' }, '<p>Olá {{contact.firstName}}!</p>\n<p><a href="{{unsubscribeUrl}}">Descadastrar</a></p>');
  const tplSel = select('templateId', [['', t('broadcasts.ownHtml')]].concat(templates.map(x => [x.id, x.name])), '');
  const preview = previewFrame();
  const form = h('form', { class: 'card', id: 'broadcast-form' },
    h('h2', {}, t('broadcasts.compose')),
    h('div', { class: 'fields' },
      field(t('broadcasts.audience'), select('audienceId', audiences.map(a => [a.id, a.name + ' (' + a.contactsCount + ')']), audiences[0] && audiences[0].id)),
      field(t('emails.from'), h('input', { name: 'fromEmail', required: true, placeholder: 'news@example.com' })),
      field(t('emails.subject'), h('input', { name: 'subject', required: true })),
      field(t('broadcasts.template'), tplSel),
      field(t('broadcasts.scheduleAt'), h('input', { name: 'scheduledAt', type: 'datetime-local' }), t('broadcasts.scheduleHint'))),
    field('HTML', html, t('broadcasts.htmlHint')),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'secondary', id: 'preview-broadcast', onclick: async () => {
        const v = formValues(form);
        const source = v.templateId ? templates.find(x => x.id === v.templateId) : null;
        const contact = await firstContact(v.audienceId);
        await preview.show({ html: source ? source.html : v.html, format: source ? source.format : 'html', variables: contact });
      } }, t('broadcasts.preview')),
      h('button', { type: 'submit', name: 'action', value: 'send' }, t('broadcasts.createSend'))),
    preview.el);
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      const body = { audienceId: v.audienceId, fromEmail: v.fromEmail, subject: v.subject };
      if (v.templateId) body.templateId = v.templateId; else body.html = v.html;
      if (v.scheduledAt) body.scheduledAt = new Date(v.scheduledAt).toISOString();
      const b = await post('/broadcasts', body);
      if (!v.scheduledAt) await post('/broadcasts/' + b.id + '/send');
      ctx.navigate('broadcasts/' + b.id);
    });
  });
  ctx.main.append(h('h1', {}, t('nav.broadcasts')),
    audiences.length ? form : h('p', { class: 'notice' }, t('broadcasts.needAudience'), ' ', link('audiences', t('nav.audiences'))),
    h('h2', {}, t('broadcasts.list')), table([
      { label: t('emails.subject'), cell: b => link('broadcasts/' + b.id, b.subject) },
      { label: t('broadcasts.audience'), cell: b => b.audienceName || b.audienceId },
      { label: t('emails.status'), cell: b => badge(b.status) },
      { label: t('broadcasts.progress'), cell: b => b.recipientsQueued + ' / ' + b.recipientsTotal },
      { label: t('emails.created'), cell: b => fmtDate(b.createdAt) },
    ], list.broadcasts || [], t('broadcasts.none')));
}

// firstContact gives the variables of the audience's first contact, for
// the preview.
async function firstContact(audienceId) {
  if (!audienceId) return {};
  const d = await get('/audiences/' + encodeURIComponent(audienceId) + '/contacts?limit=1');
  const c = (d.contacts || [])[0];
  if (!c) return {};
  return { contact: { email: c.email, firstName: c.firstName || '', lastName: c.lastName || '', metadata: c.metadata || {} }, unsubscribeUrl: '#' };
}
