// Senders: single addresses verified by a link (D-level contract 4.9).
import { h, table, fmtDate, field, submitting, formValues, badge, confirmDialog, errorBox, notice } from '../dom.js';
import { get, post, del } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const list = h('div');
  const out = h('div');
  const draw = async () => {
    const d = await get('/senders');
    list.replaceChildren(table([
      { label: t('email'), cell: s => s.email },
      { label: t('senders.displayName'), cell: s => s.displayName || '—' },
      { label: t('emails.status'), cell: s => badge(s.verifiedAt ? 'verified' : 'pending') },
      { label: t('emails.created'), cell: s => fmtDate(s.createdAt) },
      { label: t('actions'), cell: s => h('button', { type: 'button', class: 'danger small', 'aria-label': t('delete') + ' ' + s.email, onclick: async ev => {
        if (!await confirmDialog(t('senders.deleteConfirm', { email: s.email }), t('delete'))) return;
        try { await del('/senders/' + s.id); await draw(); } catch (err) { ev.target.after(errorBox(err)); }
      } }, t('delete')) },
    ], d.senders || [], t('senders.none')));
  };
  const form = h('form', { class: 'card inline', id: 'sender-form' },
    field(t('email'), h('input', { name: 'email', type: 'email', required: true })),
    field(t('senders.displayName'), h('input', { name: 'displayName', maxlength: 200 })),
    h('button', { type: 'submit' }, t('senders.add')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      await post('/senders', v.displayName ? v : { email: v.email });
      form.reset();
      out.replaceChildren(notice(t('senders.sent', { email: v.email })));
      await draw();
    });
  });
  const verify = h('form', { class: 'card inline' },
    field(t('senders.token'), h('input', { name: 'token', required: true })),
    h('button', { type: 'submit', class: 'secondary' }, t('senders.verify')));
  verify.addEventListener('submit', e => {
    e.preventDefault();
    submitting(verify, async () => {
      const r = await post('/senders/verify', formValues(verify));
      verify.reset();
      out.replaceChildren(notice(t('senders.verified', { email: r.email })));
      await draw();
    });
  });
  ctx.main.append(h('h1', {}, t('nav.senders')), out, form, verify, list);
  await draw();
}
