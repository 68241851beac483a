import { h, table, fmtDate, link, field, select, submitting, formValues, badge } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const data = await get('/templates');
  const form = h('form', { class: 'card inline', id: 'template-form' },
    field(t('name'), h('input', { name: 'name', required: true })),
    field(t('templates.format'), select('format', [['handlebars', 'HTML (Handlebars)'], ['react_email', 'React Email']], 'handlebars')),
    h('button', { type: 'submit' }, t('templates.create')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      const html = v.format === 'react_email'
        ? 'import { Html, Text } from "@react-email/components";\n\nexport default function Email({ name = "" }) {\n  return (<Html><Text>Hello {name}</Text></Html>);\n}\n'
        : '<p>Olá {{name}}!</p>';
      const tpl = await post('/templates', { name: v.name, format: v.format, html, subject: v.name });
      ctx.navigate('templates/' + tpl.id);
    });
  });
  ctx.main.append(h('h1', {}, t('nav.templates')), form, table([
    { label: t('name'), cell: x => link('templates/' + x.id, x.name) },
    { label: t('templates.format'), cell: x => x.format },
    { label: t('emails.status'), cell: x => badge(x.isActive ? 'active' : 'paused') },
    { label: t('templates.updated'), cell: x => fmtDate(x.updatedAt) },
  ], data.data || [], t('templates.none')));
}
