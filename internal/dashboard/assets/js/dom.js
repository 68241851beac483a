// Small DOM helpers. Pages build elements with h() and never assign
// innerHTML, so no text from the API can become markup.
import { t, lang } from './i18n.js';

export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'value') el.value = v;
    else if (k === 'checked') el.checked = !!v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// svg builds an SVG element (the overview chart).
export function svg(tag, attrs, ...children) {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null) el.setAttribute(k, String(v));
  for (const c of children) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export function fmtDate(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  if (isNaN(d)) return iso;
  return d.toLocaleString(lang(), { dateStyle: 'short', timeStyle: 'medium' });
}

export function link(href, ...children) {
  return h('a', { href: '/dashboard/' + href.replace(/^\//, '') }, ...children);
}

// copyButton copies text to the clipboard and says so.
export function copyButton(text, label) {
  const b = h('button', { type: 'button', class: 'small secondary', 'aria-label': (label || t('copy')) }, t('copy'));
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = t('copied');
    } catch {
      // No clipboard (insecure context): select the text for the user.
      const range = document.createRange();
      const target = b.previousElementSibling;
      if (target) { range.selectNodeContents(target); getSelection().removeAllRanges(); getSelection().addRange(range); }
      b.textContent = t('copyManually');
    }
    setTimeout(() => { b.textContent = t('copy'); }, 2000);
  });
  return b;
}

export function badge(status) {
  return h('span', { class: 'badge badge-' + String(status).replace(/[^a-z_]/g, '') }, t('status.' + status, status));
}

// table renders rows (objects) with columns [{label, cell(row)}].
export function table(columns, rows, empty) {
  if (!rows || rows.length === 0) return h('p', { class: 'empty' }, empty || t('empty'));
  return h('div', { class: 'table-wrap' },
    h('table', {},
      h('thead', {}, h('tr', {}, columns.map(c => h('th', { scope: 'col' }, c.label)))),
      h('tbody', {}, rows.map(r => h('tr', {}, columns.map(c => h('td', { 'data-label': c.label }, c.cell(r))))))));
}

// field is a labelled form control.
export function field(label, control, hint) {
  const id = control.id || ('f-' + Math.random().toString(36).slice(2, 9));
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('small', {}, hint) : null);
}

export function select(name, options, value) {
  return h('select', { name }, options.map(([v, label]) => h('option', { value: v, selected: v === value ? true : null }, label)));
}

// confirmDialog asks a yes/no question in a modal <dialog>; extra holds
// more controls (a password for reauthentication).
export function confirmDialog(message, confirmLabel, extra) {
  return new Promise(resolve => {
    const form = h('form', { method: 'dialog' },
      h('p', {}, message), extra || null,
      h('div', { class: 'actions' },
        h('button', { value: 'cancel', class: 'secondary', formnovalidate: true }, t('cancel')),
        h('button', { value: 'ok', class: 'danger' }, confirmLabel || t('confirm'))));
    const dlg = h('dialog', { 'aria-label': message }, form);
    document.body.append(dlg);
    dlg.addEventListener('close', () => { resolve(dlg.returnValue === 'ok'); dlg.remove(); });
    dlg.showModal();
  });
}

export function errorBox(err) {
  return h('div', { class: 'error', role: 'alert' }, err && err.message ? err.message : String(err));
}

export function notice(text) {
  return h('div', { class: 'notice', role: 'status' }, text);
}

// formData reads a form's named controls into an object.
export function formValues(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name) continue;
    if (el.type === 'checkbox') {
      if (el.dataset.group) { (out[el.dataset.group] ||= []); if (el.checked) out[el.dataset.group].push(el.value); }
      else out[el.name] = el.checked;
    } else out[el.name] = el.value;
  }
  return out;
}

// submitting disables a form's buttons while fn runs and shows its error.
export async function submitting(form, fn) {
  const buttons = [...form.querySelectorAll('button')];
  buttons.forEach(b => { b.disabled = true; });
  form.querySelectorAll('.error').forEach(e => e.remove());
  try {
    return await fn();
  } catch (err) {
    form.append(errorBox(err));
    return undefined;
  } finally {
    buttons.forEach(b => { b.disabled = false; });
  }
}
