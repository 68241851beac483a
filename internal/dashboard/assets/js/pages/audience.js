// One audience: its contacts (add, edit names, delete) and the CSV import,
// sent in chunks with a progress bar and the per-row errors.
import { h, table, fmtDate, field, submitting, formValues, confirmDialog, errorBox } from '../dom.js';
import { get, post, put, del } from '../api.js';
import { t } from '../i18n.js';
import { parseCSV, toContacts } from '../csv.js';

const CHUNK = 500;
const PAGE = 100;

export async function render(ctx) {
  const id = encodeURIComponent(ctx.params[0]);
  const a = await get('/audiences/' + id);
  const list = h('div', { id: 'contacts' });
  let offset = 0;
  const drawContacts = async () => {
    const d = await get('/audiences/' + id + '/contacts?limit=' + PAGE + '&offset=' + offset);
    const pager = h('div', { class: 'actions' },
      offset > 0 ? h('button', { type: 'button', class: 'secondary', onclick: () => { offset = Math.max(0, offset - PAGE); drawContacts(); } }, t('previous')) : null,
      offset + PAGE < d.total ? h('button', { type: 'button', class: 'secondary', onclick: () => { offset += PAGE; drawContacts(); } }, t('next')) : null);
    list.replaceChildren(h('p', { class: 'muted', id: 'contact-total' }, t('audiences.total', { n: d.total })), table([
      { label: t('email'), cell: c => c.email },
      { label: t('audiences.firstName'), cell: c => c.firstName || '—' },
      { label: t('audiences.lastName'), cell: c => c.lastName || '—' },
      { label: t('audiences.metadata'), cell: c => c.metadata && Object.keys(c.metadata).length ? h('code', {}, JSON.stringify(c.metadata)) : '—' },
      { label: t('emails.created'), cell: c => fmtDate(c.createdAt) },
      { label: t('actions'), cell: c => h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'secondary small', onclick: () => editContact(c) }, t('edit')),
        h('button', { type: 'button', class: 'danger small', 'aria-label': t('delete') + ' ' + c.email, onclick: async ev => {
          if (!await confirmDialog(t('audiences.deleteContact', { email: c.email }), t('delete'))) return;
          try { await del('/audiences/' + id + '/contacts/' + c.id); await drawContacts(); } catch (err) { ev.target.after(errorBox(err)); }
        } }, t('delete'))) },
    ], d.contacts || [], t('audiences.noContacts')), pager);
  };
  const editContact = async c => {
    const first = h('input', { value: c.firstName || '' });
    const last = h('input', { value: c.lastName || '' });
    if (!await confirmDialog(c.email, t('save'), h('div', {}, field(t('audiences.firstName'), first), field(t('audiences.lastName'), last)))) return;
    await put('/audiences/' + id + '/contacts/' + c.id, { firstName: first.value || null, lastName: last.value || null });
    await drawContacts();
  };
  const add = h('form', { class: 'card inline', id: 'contact-form' },
    field(t('email'), h('input', { name: 'email', type: 'email', required: true })),
    field(t('audiences.firstName'), h('input', { name: 'firstName' })),
    field(t('audiences.lastName'), h('input', { name: 'lastName' })),
    h('button', { type: 'submit' }, t('audiences.addContact')));
  add.addEventListener('submit', e => {
    e.preventDefault();
    submitting(add, async () => {
      const v = formValues(add);
      const body = { email: v.email };
      if (v.firstName) body.firstName = v.firstName;
      if (v.lastName) body.lastName = v.lastName;
      await post('/audiences/' + id + '/contacts', body);
      add.reset();
      await drawContacts();
    });
  });

  const file = h('input', { type: 'file', name: 'file', accept: '.csv,text/csv', required: true });
  const progress = h('progress', { max: 1, value: 0, id: 'import-progress', 'aria-label': t('audiences.progress') });
  const report = h('div', { id: 'import-report', 'aria-live': 'polite' });
  const imp = h('form', { class: 'card', id: 'import-form' },
    h('h2', {}, t('audiences.import')), h('p', { class: 'muted' }, t('audiences.importHint')),
    field(t('audiences.csvFile'), file), progress, report,
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, t('audiences.importButton'))));
  imp.addEventListener('submit', e => {
    e.preventDefault();
    submitting(imp, async () => {
      const f = file.files[0];
      if (!f) return;
      const { contacts, errors, lines } = toContacts(parseCSV(await f.text()));
      const rowErrors = errors.map(x => ({ ...x, reason: t('audiences.err.' + x.reason, x.reason) }));
      let inserted = 0, skipped = 0;
      progress.max = Math.max(1, contacts.length);
      progress.value = 0;
      for (let i = 0; i < contacts.length; i += CHUNK) {
        const chunk = contacts.slice(i, i + CHUNK);
        const r = await post('/audiences/' + id + '/contacts/bulk', { contacts: chunk });
        inserted += r.inserted; skipped += r.skipped;
        for (const x of r.errors || []) {
          const j = chunk.findIndex(c => c.email.toLowerCase() === String(x.email).toLowerCase());
          rowErrors.push({ line: j >= 0 ? lines[i + j] : '?', email: x.email, reason: t('audiences.err.' + x.reason, x.reason) });
        }
        progress.value = Math.min(contacts.length, i + chunk.length);
        report.replaceChildren(h('p', {}, t('audiences.importing', { done: progress.value, total: contacts.length })));
      }
      rowErrors.sort((x, y) => (x.line === '?' ? 1e9 : x.line) - (y.line === '?' ? 1e9 : y.line));
      report.replaceChildren(
        h('p', { role: 'status', id: 'import-summary' }, t('audiences.imported', { inserted, skipped, errors: rowErrors.length })),
        rowErrors.length ? table([
          { label: t('audiences.line'), cell: x => String(x.line) },
          { label: t('email'), cell: x => x.email || '—' },
          { label: t('audiences.reason'), cell: x => x.reason },
        ], rowErrors) : null);
      offset = 0;
      await drawContacts();
    });
  });
  const delBtn = h('button', { type: 'button', class: 'danger', onclick: async () => {
    if (!await confirmDialog(t('audiences.deleteConfirm', { name: a.name }), t('delete'))) return;
    await del('/audiences/' + id);
    ctx.navigate('audiences');
  } }, t('delete'));
  ctx.main.append(
    h('p', {}, h('a', { href: '/dashboard/audiences' }, '← ' + t('nav.audiences'))),
    h('div', { class: 'row' }, h('h1', {}, a.name), h('div', { class: 'actions' }, delBtn)),
    a.description ? h('p', { class: 'muted' }, a.description) : null,
    imp, add, h('h2', {}, t('audiences.contacts')), list);
  await drawContacts();
}
