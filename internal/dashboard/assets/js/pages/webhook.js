// One webhook: events, pause/resume, secret rotation (shown once), test,
// and the delivery log with response status, body and retry state.
import { h, table, fmtDate, badge, copyButton, confirmDialog, errorBox, submitting, formValues } from '../dom.js';
import { get, post, put, patch, del } from '../api.js';
import { t } from '../i18n.js';
import { eventBoxes } from './webhooks.js';

const POLL_MS = 3000;

export async function render(ctx) {
  const id = encodeURIComponent(ctx.params[0]);
  const wh = await get('/webhooks/' + id);
  const out = h('div', { id: 'webhook-out' });
  const act = (label, fn, cls) => h('button', { type: 'button', class: cls || 'secondary', onclick: async ev => {
    ev.target.disabled = true;
    try { await fn(); } catch (err) { out.replaceChildren(errorBox(err)); } finally { ev.target.disabled = false; }
  } }, label);
  const testBtn = act(t('webhooks.test'), async () => {
    await post('/webhooks/' + id + '/test');
    out.replaceChildren(h('div', { class: 'notice', role: 'status' }, t('webhooks.testSent')));
    await drawDeliveries();
  });
  testBtn.id = 'test-webhook';
  const pauseBtn = act(wh.status === 'paused' ? t('webhooks.resume') : t('webhooks.pause'), async () => {
    await patch('/webhooks/' + id, { status: wh.status === 'paused' ? 'active' : 'paused' });
    ctx.navigate('webhooks/' + ctx.params[0], true);
  });
  pauseBtn.id = 'pause-webhook';
  const rotateBtn = act(t('webhooks.rotate'), async () => {
    if (!await confirmDialog(t('webhooks.rotateConfirm'), t('webhooks.rotate'))) return;
    const r = await post('/webhooks/' + id + '/rotate-secret');
    out.replaceChildren(h('div', { class: 'card highlight', role: 'status' }, h('p', {}, t('webhooks.newSecret')),
      h('div', { class: 'copyline' }, h('code', { class: 'secret' }, r.secret), copyButton(r.secret))));
  });
  rotateBtn.id = 'rotate-secret';
  const deleteBtn = act(t('delete'), async () => {
    if (!await confirmDialog(t('webhooks.deleteConfirm', { url: wh.url }), t('delete'))) return;
    await del('/webhooks/' + id);
    ctx.navigate('webhooks');
  }, 'danger');
  const form = h('form', { class: 'card' }, h('h2', {}, t('webhooks.events')), eventBoxes(wh.events || []),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('save'))));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      await put('/webhooks/' + id, { events: formValues(form).events });
      out.replaceChildren(h('div', { class: 'notice', role: 'status' }, t('saved')));
    });
  });
  const deliveries = h('div', { id: 'deliveries' });
  const drawDeliveries = async () => {
    const d = await get('/webhooks/' + id + '/deliveries?limit=50');
    deliveries.replaceChildren(table([
      { label: t('emails.created'), cell: x => fmtDate(x.createdAt) },
      { label: t('webhooks.event'), cell: x => x.eventType },
      { label: t('emails.status'), cell: x => badge(x.status) },
      { label: t('webhooks.response'), cell: x => x.responseStatus ?? '—' },
      { label: t('webhooks.attempts'), cell: x => String(x.attempts) },
      { label: t('webhooks.nextRetry'), cell: x => x.status === 'pending' || x.status === 'failed' ? fmtDate(x.nextRunAt) : '—' },
      { label: t('webhooks.body'), cell: x => x.responseBody || x.lastError ? h('details', {}, h('summary', {}, t('details')), h('pre', {}, [x.lastError, x.responseBody].filter(Boolean).join('\n'))) : '—' },
    ], d.deliveries || [], t('webhooks.noDeliveries')));
  };
  ctx.main.append(
    h('p', {}, h('a', { href: '/dashboard/webhooks' }, '← ' + t('nav.webhooks'))),
    h('h1', {}, wh.url),
    h('div', { class: 'row' }, badge(wh.status), wh.secretPreview ? h('span', { class: 'muted' }, t('webhooks.secret') + ': ' + wh.secretPreview) : null,
      h('div', { class: 'actions' }, testBtn, pauseBtn, rotateBtn, deleteBtn)),
    out, form,
    h('section', { 'aria-labelledby': 'h-deliveries' }, h('h2', { id: 'h-deliveries' }, t('webhooks.deliveries')), deliveries));
  await drawDeliveries();
  const timer = setInterval(() => { if (ctx.current()) drawDeliveries().catch(() => {}); }, POLL_MS);
  ctx.onLeave(() => clearInterval(timer));
}
