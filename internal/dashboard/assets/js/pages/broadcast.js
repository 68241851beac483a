// One broadcast: progress (queued / total) polled while sending, send,
// cancel.
import { h, fmtDate, badge, confirmDialog, errorBox } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

const POLL_MS = 2000;

export async function render(ctx) {
  const id = encodeURIComponent(ctx.params[0]);
  const box = h('div', { id: 'broadcast' });
  const out = h('div');
  ctx.main.append(h('p', {}, h('a', { href: '/dashboard/broadcasts' }, '← ' + t('nav.broadcasts'))), box, out);
  let timer = null;
  const draw = async () => {
    const b = await get('/broadcasts/' + id);
    const pct = b.recipientsTotal ? Math.round(100 * b.recipientsQueued / b.recipientsTotal) : 0;
    const actions = h('div', { class: 'actions' });
    if (b.status === 'draft') actions.append(h('button', { type: 'button', onclick: async () => {
      try { await post('/broadcasts/' + id + '/send'); await draw(); } catch (err) { out.replaceChildren(errorBox(err)); }
    } }, t('broadcasts.send')));
    if (b.status === 'scheduled' || b.status === 'sending') actions.append(h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (!await confirmDialog(t('broadcasts.cancelConfirm'), t('broadcasts.cancel'))) return;
      try { await post('/broadcasts/' + id + '/cancel'); await draw(); } catch (err) { out.replaceChildren(errorBox(err)); }
    } }, t('broadcasts.cancel')));
    box.replaceChildren(
      h('h1', {}, b.subject),
      h('div', { class: 'row' }, h('span', { id: 'broadcast-status' }, badge(b.status)), actions),
      h('section', { class: 'card', 'aria-labelledby': 'h-progress' }, h('h2', { id: 'h-progress' }, t('broadcasts.progress')),
        h('progress', { max: Math.max(1, b.recipientsTotal), value: b.recipientsQueued, 'aria-labelledby': 'h-progress' }),
        h('p', { id: 'broadcast-progress' }, t('broadcasts.progressText', { queued: b.recipientsQueued, total: b.recipientsTotal, failed: b.recipientsFailed, pct }))),
      h('dl', { class: 'card' },
        h('dt', {}, t('emails.from')), h('dd', {}, b.fromEmail),
        h('dt', {}, t('broadcasts.audience')), h('dd', {}, b.audienceName || b.audienceId),
        h('dt', {}, t('broadcasts.scheduleAt')), h('dd', {}, fmtDate(b.scheduledAt)),
        h('dt', {}, t('broadcasts.sentAt')), h('dd', {}, fmtDate(b.sentAt)),
        h('dt', {}, t('emails.created')), h('dd', {}, fmtDate(b.createdAt))));
    if (timer && !['sending', 'scheduled', 'draft'].includes(b.status)) { clearInterval(timer); timer = null; }
  };
  await draw();
  timer = setInterval(() => { if (ctx.current()) draw().catch(() => {}); }, POLL_MS);
  ctx.onLeave(() => { if (timer) clearInterval(timer); });
}
