// The first-start page (D73): the link `carteiro serve` prints leads here;
// the first owner chooses an email and a password.
import { h, field, submitting, formValues, errorBox } from '../dom.js';
import { get, post } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const token = ctx.params[0];
  let org;
  try {
    org = await get('/setup/' + encodeURIComponent(token), { allowUnauthorized: true });
  } catch (err) {
    ctx.main.append(h('div', { class: 'center' }, h('div', { class: 'card narrow' },
      h('h1', {}, t('setup.title')), errorBox(err.status === 404 ? t('setup.invalid') : err),
      h('p', {}, h('a', { href: '/dashboard/login' }, t('login.title'))))));
    return;
  }
  const pass = h('input', { name: 'password', type: 'password', required: true, minlength: 8, autocomplete: 'new-password' });
  const again = h('input', { name: 'password2', type: 'password', required: true, autocomplete: 'new-password' });
  const form = h('form', { class: 'card narrow', id: 'setup-form' },
    h('h1', {}, t('setup.title')),
    h('p', {}, t('setup.intro', { org: org.organizationName })),
    field(t('email'), h('input', { name: 'email', type: 'email', required: true, autocomplete: 'username' })),
    field(t('password'), pass, t('setup.passwordHint')),
    field(t('setup.passwordAgain'), again),
    h('button', { type: 'submit' }, t('setup.submit')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      if (v.password !== v.password2) throw new Error(t('setup.mismatch'));
      const data = await post('/setup/' + encodeURIComponent(token), { email: v.email, password: v.password }, { allowUnauthorized: true });
      await ctx.setSession(data);
      ctx.navigate('', true);
    });
  });
  ctx.main.append(h('div', { class: 'center' }, h('p', { class: 'brand big' }, 'Carteiro'), form));
}
