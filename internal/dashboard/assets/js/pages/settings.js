// Settings: language, password, TOTP (on, and off with the password and a
// code); for owners the users and roles and the audit of API keys and
// users, a page at a time (D73).
import { h, table, fmtDate, field, select, submitting, formValues, notice, confirmDialog, errorBox, copyButton } from '../dom.js';
import { get, post, patch, del } from '../api.js';
import { t, lang, LANGS, loadLang, rememberLang } from '../i18n.js';

export async function render(ctx) {
  const me = ctx.me;
  const owner = me.role === 'owner';
  const langForm = h('form', { class: 'card inline', id: 'language-form' },
    field(t('language'), select('language', LANGS, lang())),
    h('button', { type: 'submit' }, t('save')));
  langForm.addEventListener('submit', e => {
    e.preventDefault();
    submitting(langForm, async () => {
      const { language } = formValues(langForm);
      await patch('/me', { language });
      rememberLang(language);
      await loadLang(language);
      ctx.navigate('settings', true);
    });
  });
  const pwForm = h('form', { class: 'card', id: 'password-form' }, h('h2', {}, t('settings.password')),
    h('div', { class: 'fields' },
      field(t('settings.currentPassword'), h('input', { name: 'currentPassword', type: 'password', required: true, autocomplete: 'current-password' })),
      field(t('settings.newPassword'), h('input', { name: 'newPassword', type: 'password', required: true, minlength: 8, autocomplete: 'new-password' }))),
    h('button', { type: 'submit' }, t('save')));
  pwForm.addEventListener('submit', e => {
    e.preventDefault();
    submitting(pwForm, async () => { await post('/me/password', formValues(pwForm)); pwForm.reset(); pwForm.append(notice(t('settings.passwordChanged'))); });
  });
  const totpBox = h('section', { class: 'card', 'aria-labelledby': 'h-totp' }, h('h2', { id: 'h-totp' }, t('settings.totp')));
  if (me.totpEnabled) {
    const off = h('form', { class: 'inline', id: 'totp-disable-form' },
      field(t('password'), h('input', { name: 'password', type: 'password', required: true, autocomplete: 'current-password' })),
      field(t('login.totp'), h('input', { name: 'totpCode', inputmode: 'numeric', required: true, autocomplete: 'one-time-code' })),
      h('button', { type: 'submit', class: 'danger' }, t('settings.totpDisable')));
    off.addEventListener('submit', ev => {
      ev.preventDefault();
      submitting(off, async () => { await post('/me/totp/disable', formValues(off)); me.totpEnabled = false; totpBox.replaceChildren(notice(t('settings.totpOff'))); });
    });
    totpBox.append(h('p', {}, t('settings.totpOn')), off);
  } else {
    const start = h('button', { type: 'button', class: 'secondary', id: 'totp-enable' }, t('settings.totpEnable'));
    start.addEventListener('click', async () => {
      try {
        const r = await post('/me/totp');
        const confirmForm = h('form', { class: 'inline', id: 'totp-confirm-form' }, field(t('login.totp'), h('input', { name: 'code', inputmode: 'numeric', required: true })),
          h('button', { type: 'submit' }, t('confirm')));
        confirmForm.addEventListener('submit', ev => {
          ev.preventDefault();
          submitting(confirmForm, async () => { await post('/me/totp/confirm', formValues(confirmForm)); me.totpEnabled = true; totpBox.replaceChildren(notice(t('settings.totpOn'))); });
        });
        start.replaceWith(h('div', {}, h('p', {}, t('settings.totpScan')),
          h('div', { class: 'copyline' }, h('code', { class: 'secret', id: 'totp-secret' }, r.secret), copyButton(r.secret)),
          h('p', {}, h('code', { class: 'wrap' }, r.otpauthUrl)), confirmForm));
      } catch (err) { totpBox.append(errorBox(err)); }
    });
    totpBox.append(start);
  }
  ctx.main.append(h('h1', {}, t('nav.settings')),
    h('p', { class: 'muted' }, t('settings.signedIn', { email: me.email, role: t('role.' + me.role, me.role), org: me.organizationName || me.organizationId })),
    h('p', { class: 'muted' }, t('settings.orgId') + ': ', h('code', {}, me.organizationId)),
    langForm, pwForm, totpBox);
  if (!owner) return;

  const users = h('div', { id: 'users' });
  const drawUsers = async () => {
    const d = await get('/users');
    users.replaceChildren(table([
      { label: t('email'), cell: u => u.email },
      { label: t('settings.role'), cell: u => u.id === me.id ? t('role.' + u.role, u.role) : (() => {
        const s = select('role', [['owner', t('role.owner')], ['member', t('role.member')]], u.role);
        s.setAttribute('aria-label', t('settings.role') + ' ' + u.email);
        s.addEventListener('change', async () => { try { await patch('/users/' + u.id, { role: s.value }); } catch (err) { s.after(errorBox(err)); } });
        return s;
      })() },
      { label: t('emails.created'), cell: u => fmtDate(u.createdAt) },
      { label: t('actions'), cell: u => u.id === me.id ? '' : h('button', { type: 'button', class: 'danger small', 'aria-label': t('delete') + ' ' + u.email, onclick: async ev => {
        if (!await confirmDialog(t('settings.deleteUser', { email: u.email }), t('delete'))) return;
        try { await del('/users/' + u.id); await drawUsers(); } catch (err) { ev.target.after(errorBox(err)); }
      } }, t('delete')) },
    ], d.data || d.users || []));
  };
  const addUser = h('form', { class: 'card inline', id: 'user-form' },
    field(t('email'), h('input', { name: 'email', type: 'email', required: true })),
    field(t('password'), h('input', { name: 'password', type: 'password', required: true, minlength: 8, autocomplete: 'new-password' })),
    field(t('settings.role'), select('role', [['member', t('role.member')], ['owner', t('role.owner')]], 'member')),
    h('button', { type: 'submit' }, t('settings.addUser')));
  addUser.addEventListener('submit', e => {
    e.preventDefault();
    submitting(addUser, async () => { await post('/users', formValues(addUser)); addUser.reset(); await drawUsers(); });
  });
  // The audit log, a page at a time: "Older entries" asks for the page
  // after the last one shown (a cursor, not an offset).
  const audit = h('div', { id: 'audit' });
  const entries = [];
  const drawAudit = async cursor => {
    let page;
    try { page = await get('/audit' + (cursor ? '?before=' + encodeURIComponent(cursor) : '')); } catch (err) { audit.replaceChildren(errorBox(err)); return; }
    entries.push(...(page.data || []));
    const more = page.nextCursor ? h('button', { type: 'button', class: 'secondary', id: 'audit-more', onclick: () => drawAudit(page.nextCursor) }, t('settings.auditMore')) : null;
    audit.replaceChildren(table([
      { label: t('settings.when'), cell: a => fmtDate(a.at) },
      { label: t('settings.actor'), cell: a => a.actor },
      { label: t('settings.action'), cell: a => t('audit.' + a.action, a.action) },
      { label: t('settings.target'), cell: a => a.target },
    ], entries, t('settings.noAudit')), ...(more ? [more] : []));
  };
  ctx.main.append(
    h('h2', {}, t('settings.users')), addUser, users,
    h('h2', {}, t('settings.audit')), audit);
  await Promise.all([drawUsers(), drawAudit('')]);
}
