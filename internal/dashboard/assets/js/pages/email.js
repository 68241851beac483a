// One email: its HTML in a sandboxed iframe (D73; remote images only on
// request), its text, addresses, headers, attachments and tags, the
// timeline, the webhook deliveries of its events, resend and cancel.
import { h, badge, fmtDate, table, confirmDialog, errorBox, notice } from '../dom.js';
import { get, post, mode } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const id = ctx.params[0];
  const base = '/emails/' + encodeURIComponent(id);
  const [email, events, details] = await Promise.all([get(base), get(base + '/events'), get(base + '/details')]);
  const actions = h('div', { class: 'actions' });
  if (email.status === 'scheduled') {
    actions.append(h('button', { type: 'button', class: 'danger', onclick: async () => {
      if (!await confirmDialog(t('email.cancelConfirm'), t('email.cancel'))) return;
      try { await post('/emails/' + id + '/cancel'); ctx.navigate('emails/' + id, true); } catch (err) { actions.append(errorBox(err)); }
    } }, t('email.cancel')));
  }
  if (email.status === 'failed' || email.status === 'cancelled') {
    actions.append(h('button', { type: 'button', onclick: async () => {
      try { const r = await post('/emails/' + id + '/resend'); ctx.navigate('emails/' + r.id); } catch (err) { actions.append(errorBox(err)); }
    } }, t('email.resend')));
  }
  const viewerURL = images => '/dashboard/viewer/' + encodeURIComponent(id) + '?mode=' + mode() + (images ? '&images=1' : '');
  // No allow-* token at all: no scripts, forms, popups or navigation, and
  // an opaque origin (D73).
  const frame = h('iframe', { sandbox: '', src: viewerURL(false), title: t('email.htmlBody'), id: 'email-frame', referrerpolicy: 'no-referrer' });
  const imagesBtn = h('button', { type: 'button', class: 'secondary small', id: 'load-images' }, t('email.loadImages'));
  imagesBtn.addEventListener('click', () => { frame.src = viewerURL(true); imagesBtn.disabled = true; imagesBtn.textContent = t('email.imagesShown'); });
  const dl = (label, value) => [h('dt', {}, label), h('dd', {}, value === null || value === undefined || value === '' ? '—' : value)];
  ctx.main.append(
    h('p', {}, h('a', { href: '/dashboard/emails' }, '← ' + t('nav.emails'))),
    h('h1', {}, email.subject || t('email.noSubject')),
    h('div', { class: 'row' }, badge(email.status), actions),
    email.lastError ? notice(t('email.lastError') + ': ' + email.lastError) : null,
    h('div', { class: 'grid2' },
      h('section', { class: 'card', 'aria-labelledby': 'h-headers' }, h('h2', { id: 'h-headers' }, t('email.headers')),
        h('dl', {},
          dl(t('emails.from'), email.from), dl(t('emails.to'), (email.to || []).join(', ')),
          dl('Cc', (email.cc || []).join(', ')), dl('Bcc', (email.bcc || []).join(', ')),
          dl('Message-ID', email.messageId), dl(t('email.id'), email.id),
          dl(t('email.apiKey'), email.apiKey ? email.apiKey.name : null),
          dl(t('email.attempts'), String(email.attempts)),
          dl(t('email.opens'), String(email.openCount)), dl(t('email.clicks'), String(email.clickCount)),
          dl(t('email.tags'), (email.tags || []).map(tg => h('span', { class: 'tag' }, tg.name + '=' + tg.value))),
          details.headers.map(x => dl(x.name, x.value))),
        h('h3', {}, t('email.attachments')),
        table([
          { label: t('email.fileName'), cell: a => a.filename },
          { label: t('email.fileType'), cell: a => a.contentType + (a.disposition === 'inline' ? ' (' + t('email.inline') + ')' : '') },
          { label: t('email.fileSize'), cell: a => fmtBytes(a.size) },
        ], details.attachments, t('email.noAttachments'))),
      h('section', { class: 'card', 'aria-labelledby': 'h-timeline' }, h('h2', { id: 'h-timeline' }, t('email.timeline')),
        h('ol', { class: 'timeline', id: 'timeline' }, (events.events || []).map(ev =>
          h('li', {}, badge(ev.type), ' ', h('time', { datetime: ev.timestamp }, fmtDate(ev.timestamp)),
            ev.metadata && Object.keys(ev.metadata).length ? h('code', { class: 'meta' }, JSON.stringify(ev.metadata)) : null))))),
    h('section', { class: 'card', 'aria-labelledby': 'h-html' }, h('div', { class: 'row' }, h('h2', { id: 'h-html' }, t('email.htmlBody')), imagesBtn),
      h('p', { class: 'muted' }, t('email.imagesOff')), frame),
    h('section', { class: 'card', 'aria-labelledby': 'h-text' }, h('h2', { id: 'h-text' }, t('email.textBody')),
      h('pre', { class: 'text-body', tabindex: '0' }, email.text || '—')),
    h('section', { class: 'card', 'aria-labelledby': 'h-hooks' }, h('h2', { id: 'h-hooks' }, t('email.webhooks')), await hookDeliveries(details.webhookDeliveries)));
}

function fmtBytes(n) {
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(1) + ' KB';
  return (n / 1024 / 1024).toFixed(1) + ' MB';
}

// hookDeliveries lists the deliveries of this email's events, with their
// endpoints' addresses.
async function hookDeliveries(deliveries) {
  if (deliveries.length === 0) return h('p', { class: 'empty', id: 'email-deliveries' }, t('email.noDeliveries'));
  const urls = {};
  try {
    for (const wh of (await get('/webhooks')).webhooks || []) urls[wh.id] = wh.url;
  } catch { /* the addresses are a convenience; the deliveries still show */ }
  const list = table([
    { label: t('webhooks.url'), cell: r => urls[r.webhookId] || r.webhookId },
    { label: t('webhooks.event'), cell: r => r.eventType },
    { label: t('emails.status'), cell: r => badge(r.status) },
    { label: t('webhooks.response'), cell: r => r.responseStatus ?? '—' },
    { label: t('webhooks.attempts'), cell: r => String(r.attempts) },
    // A delivery is due when its event happens: its first attempt is then.
    { label: t('emails.created'), cell: r => fmtDate(r.createdAt) },
    { label: t('webhooks.nextRetry'), cell: r => r.status === 'pending' || r.status === 'failed' ? fmtDate(r.nextRunAt) : '—' },
  ], deliveries);
  list.id = 'email-deliveries';
  return list;
}
