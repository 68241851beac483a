// One domain: the records to publish (copy buttons, per-record status),
// verify now, health, warmup, delete with reauthentication (D73, D63).
import { h, table, fmtDate, badge, copyButton, confirmDialog, errorBox, field, notice } from '../dom.js';
import { get, post, del } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const id = encodeURIComponent(ctx.params[0]);
  const d = await get('/domains/' + id);
  const checks = h('div', { id: 'verify-result' });
  const health = h('div', { id: 'health-result' });
  const recordStatus = {};
  const verifyBtn = h('button', { type: 'button', id: 'verify' }, t('domains.verify'));
  verifyBtn.addEventListener('click', async () => {
    verifyBtn.disabled = true;
    try {
      const r = await post('/domains/' + id + '/verify');
      sessionStorage.setItem('carteiro.verify.' + ctx.params[0], JSON.stringify(r));
      ctx.navigate('domains/' + ctx.params[0], true);
    } catch (err) { checks.replaceChildren(errorBox(err)); } finally { verifyBtn.disabled = false; }
  });
  // The last verify of this domain (kept across the reload it causes)
  // gives each record its status.
  const last = sessionStorage.getItem('carteiro.verify.' + ctx.params[0]);
  if (last) {
    try { showChecks(checks, JSON.parse(last), recordStatus); } catch { /* ignore an old format */ }
  }
  const healthBtn = h('button', { type: 'button', class: 'secondary', id: 'health' }, t('domains.health'));
  healthBtn.addEventListener('click', async () => {
    healthBtn.disabled = true;
    try { showHealth(health, await post('/domains/' + id + '/health')); } catch (err) { health.replaceChildren(errorBox(err)); } finally { healthBtn.disabled = false; }
  });
  const deleteBtn = h('button', { type: 'button', class: 'danger', id: 'delete-domain' }, t('delete'));
  deleteBtn.addEventListener('click', async () => {
    const pw = h('input', { type: 'password', name: 'password', autocomplete: 'current-password' });
    const code = h('input', { name: 'totp', inputmode: 'numeric', autocomplete: 'one-time-code' });
    const extra = h('div', {}, field(t('password'), pw), ctx.me.totpEnabled ? field(t('login.totp'), code) : null);
    if (!await confirmDialog(t('domains.deleteConfirm', { name: d.name }), t('delete'), extra)) return;
    try {
      // The platform API's reauthentication (D73): the user's password,
      // and the TOTP code when the user has it on.
      const body = { password: pw.value };
      if (ctx.me.totpEnabled) body.totpCode = code.value;
      await del('/domains/' + id, body);
      ctx.navigate('domains');
    } catch (err) { deleteBtn.after(errorBox(err)); }
  });
  let warm = null;
  try { warm = await get('/domains/' + id + '/warmup'); } catch { /* warmup may be off */ }
  const records = d.dnsRecordsToPublish || d.records || [];
  ctx.main.append(
    h('p', {}, h('a', { href: '/dashboard/domains' }, '← ' + t('nav.domains'))),
    h('h1', {}, d.name),
    h('div', { class: 'row' }, badge(d.status), h('span', { class: 'muted' }, t('domains.lastCheck') + ': ' + fmtDate(d.lastCheckAt)),
      h('div', { class: 'actions' }, verifyBtn, healthBtn, ctx.me.role === 'owner' ? deleteBtn : null)),
    d.status !== 'verified' ? notice(t('domains.publish')) : null,
    checks,
    h('section', { class: 'card', 'aria-labelledby': 'h-records' }, h('h2', { id: 'h-records' }, t('domains.records')),
      table([
        { label: t('domains.type'), cell: r => r.type },
        { label: t('domains.host'), cell: r => h('span', { class: 'copyline' }, h('code', {}, r.host), copyButton(r.host, t('copy') + ' ' + r.host)) },
        { label: t('domains.value'), cell: r => h('span', { class: 'copyline' }, h('code', { class: 'wrap' }, r.value), copyButton(r.value, t('copy') + ' ' + r.type + ' ' + r.host)) },
        { label: 'TTL', cell: r => r.ttl ?? '—' },
        { label: t('emails.status'), cell: r => {
          const kind = recordKind(r);
          if (!kind) return '—';
          return badge(recordStatus[kind] || (d.status === 'verified' ? 'pass' : 'pending'));
        } },
      ], records)),
    h('section', { class: 'card', 'aria-labelledby': 'h-warmup' }, h('h2', { id: 'h-warmup' }, t('domains.warmup')),
      warm ? h('div', {},
        h('p', {}, t('domains.warmupDay', { day: warm.currentDay, sent: warm.sentToday, quota: warm.dailyQuota })),
        h('progress', { max: 100, value: warm.quotaUsedPercent, 'aria-label': t('domains.warmup') }))
        : h('p', { class: 'muted' }, t('domains.noWarmup'))),
    health);
}

// recordKind names the check (spf, dkim, dmarc, ownership) a record to
// publish answers.
function recordKind(r) {
  if (r.record) return r.record;
  if (/^_dmarc\./.test(r.host)) return 'dmarc';
  if (/\._domainkey\./.test(r.host)) return 'dkim';
  if (/^v=spf1/i.test(r.value)) return 'spf';
  if (/^_carteiro\./.test(r.host)) return 'ownership';
  return ''; // the bounce CNAME: no check of its own
}

// showChecks draws the result of a verify: one line per check
// ({checks: {spf: {status: pass|fail|pending, expected, found}}}).
function showChecks(box, r, recordStatus) {
  const entries = Object.entries(r.checks || {});
  box.replaceChildren(h('section', { class: 'card', 'aria-labelledby': 'h-checks' }, h('h2', { id: 'h-checks' }, t('domains.checks')),
    r.status ? h('p', {}, t('domains.result') + ': ', badge(r.status)) : null,
    h('ul', { class: 'checks' }, entries.map(([name, c]) => {
      recordStatus[name] = c.status;
      return h('li', {}, badge(c.status), ' ', h('strong', {}, name.toUpperCase()),
        c.status !== 'pass' && c.found && c.found.length ? ' — ' + t('domains.found') + ': ' + c.found.join(' | ') : '');
    }))));
}

function showHealth(box, r) {
  const recs = r.recommendations || [];
  const lists = r.blacklists || [];
  box.replaceChildren(h('section', { class: 'card', 'aria-labelledby': 'h-health' }, h('h2', { id: 'h-health' }, t('domains.health')),
    r.score !== undefined ? h('p', { class: 'score' }, t('domains.score') + ': ' + r.score) : null,
    lists.length ? h('ul', {}, lists.map(b => h('li', {}, b.list + ' (' + b.target + '): ' + (b.listed ? t('domains.listed') : t('domains.notListed'))))) : null,
    recs.length ? h('ul', {}, recs.map(x => h('li', {}, badge(x.severity), ' ', x.message))) : null,
    r.dns ? h('ul', { class: 'checks' }, Object.entries(r.dns).map(([k, c]) => h('li', {}, badge(c.status), ' ', k.toUpperCase()))) : null));
}
