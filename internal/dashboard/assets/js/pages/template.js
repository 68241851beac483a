// The template editor: source, subject, text and variables with defaults;
// a live preview (POST /templates/preview) as the source changes; format;
// test-render with the sanitize report.
import { h, field, select, submitting, formValues, errorBox, notice, confirmDialog } from '../dom.js';
import { get, post, patch, api } from '../api.js';
import { t } from '../i18n.js';

let frames = 0;

// previewFrame is a sandboxed iframe showing rendered HTML: the page posts
// the HTML to /dashboard/preview with the iframe as the form's target, so
// it gets the viewer's CSP rather than this page's (see preview.go).
export function previewFrame() {
  const name = 'preview-' + (++frames);
  const frame = h('iframe', { name, sandbox: '', class: 'preview', title: t('templates.preview') });
  const input = h('input', { type: 'hidden', name: 'html' });
  const form = h('form', { method: 'post', action: '/dashboard/preview', target: name, hidden: true }, input);
  const err = h('div');
  const el = h('div', { class: 'preview-box' }, err, frame, form);
  return {
    el,
    async show(body) {
      try {
        const r = await post('/templates/preview', body);
        err.replaceChildren();
        input.value = r.html || '';
        form.submit();
        return r;
      } catch (e) {
        err.replaceChildren(errorBox(e));
        return null;
      }
    },
  };
}

export async function render(ctx) {
  const id = encodeURIComponent(ctx.params[0]);
  const tpl = await get('/templates/' + id);
  const src = h('textarea', { name: 'html', spellcheck: 'false', class: 'code' }, tpl.html);
  const vars = h('div', { class: 'vars' });
  const addVar = (name = '', def = '') => {
    const row = h('div', { class: 'fields var' },
      field(t('templates.varName'), h('input', { 'data-var': 'name', value: name })),
      field(t('templates.varDefault'), h('input', { 'data-var': 'default', value: def })),
      h('button', { type: 'button', class: 'secondary small', onclick: () => { row.remove(); schedule(); } }, t('delete')));
    vars.append(row);
  };
  for (const v of tpl.variables || []) addVar(v.name, v.defaultValue === undefined ? '' : String(v.defaultValue));
  const readVars = () => [...vars.querySelectorAll('.var')].map(r => ({
    name: r.querySelector('[data-var=name]').value.trim(), def: r.querySelector('[data-var=default]').value,
  })).filter(v => v.name);
  const preview = previewFrame();
  const report = h('div', { id: 'test-render-report' });
  const form = h('form', { class: 'card', id: 'template-editor' },
    h('div', { class: 'fields' },
      field(t('name'), h('input', { name: 'name', value: tpl.name, required: true })),
      field(t('emails.subject'), h('input', { name: 'subject', value: tpl.subject || '' })),
      field(t('templates.format'), select('format', [['html', 'HTML (Handlebars)'], ['react', 'React Email']], tpl.format)),
      h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'isActive', checked: tpl.isActive }), ' ', t('templates.active'))),
    field(t('templates.source'), src),
    field(t('templates.text'), h('textarea', { name: 'textPayload', class: 'short' }, tpl.textPayload || '')),
    h('fieldset', {}, h('legend', {}, t('templates.variables')), vars,
      h('button', { type: 'button', class: 'secondary small', onclick: () => addVar() }, t('templates.addVar'))),
    h('div', { class: 'actions' },
      h('button', { type: 'submit' }, t('save')),
      h('button', { type: 'button', class: 'secondary', onclick: async () => {
        try {
          const r = await post('/templates/format', { html: src.value, format: formValues(form).format });
          src.value = r.html; schedule();
        } catch (e) { report.replaceChildren(errorBox(e)); }
      } }, t('templates.formatButton')),
      h('button', { type: 'button', class: 'secondary', id: 'test-render', onclick: async () => {
        try {
          const r = await post('/templates/test-render', { html: src.value, format: formValues(form).format, variables: variables() });
          const s = r.sanitizeReport || {};
          report.replaceChildren(notice(t('templates.sanitized', { scripts: s.scripts, iframes: s.iframes, hrefs: s.javascriptHrefs, handlers: s.eventHandlers })));
        } catch (e) { report.replaceChildren(errorBox(e)); }
      } }, t('templates.testRender')),
      h('button', { type: 'button', class: 'danger', onclick: async () => {
        if (!await confirmDialog(t('templates.deleteConfirm', { name: tpl.name }), t('delete'))) return;
        await api('DELETE', '/templates/' + id);
        ctx.navigate('templates');
      } }, t('delete'))),
    report);
  const variables = () => Object.fromEntries(readVars().map(v => [v.name, v.def]));
  let pending = null;
  const schedule = () => {
    clearTimeout(pending);
    pending = setTimeout(() => {
      const v = formValues(form);
      preview.show({ html: src.value, format: v.format, variables: variables(), subject: v.subject || undefined });
    }, 600);
  };
  form.addEventListener('input', schedule);
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      await patch('/templates/' + id, {
        name: v.name, subject: v.subject || null, html: src.value, textPayload: v.textPayload || null, format: v.format, isActive: v.isActive,
        variables: readVars().map(x => ({ name: x.name, ...(x.def !== '' ? { defaultValue: x.def } : {}) })),
      });
      report.replaceChildren(notice(t('saved')));
    });
  });
  ctx.onLeave(() => clearTimeout(pending));
  ctx.main.append(
    h('p', {}, h('a', { href: '/dashboard/templates' }, '← ' + t('nav.templates'))),
    h('h1', {}, tpl.name),
    h('div', { class: 'grid2 editor' }, form, h('section', { class: 'card', 'aria-labelledby': 'h-preview' }, h('h2', { id: 'h-preview' }, t('templates.preview')), preview.el)));
  schedule();
}
