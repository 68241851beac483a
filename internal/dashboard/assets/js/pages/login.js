import { h, field, submitting, formValues } from '../dom.js';
import { post } from '../api.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  const totp = field(t('login.totp'), h('input', { name: 'totpCode', inputmode: 'numeric', autocomplete: 'one-time-code', pattern: '[0-9]{6}' }));
  totp.hidden = true;
  const form = h('form', { class: 'card narrow', id: 'login-form' },
    h('h1', {}, t('login.title')),
    field(t('email'), h('input', { name: 'email', type: 'email', required: true, autocomplete: 'username' })),
    field(t('password'), h('input', { name: 'password', type: 'password', required: true, autocomplete: 'current-password' })),
    totp,
    h('button', { type: 'submit' }, t('login.submit')));
  form.addEventListener('submit', e => {
    e.preventDefault();
    submitting(form, async () => {
      const v = formValues(form);
      const body = { email: v.email, password: v.password };
      if (!totp.hidden) body.totpCode = v.totpCode;
      try {
        const data = await post('/login', body, { allowUnauthorized: true });
        await ctx.setSession(data);
        const next = ctx.query.get('next') || '';
        ctx.navigate(/^[a-z0-9/-]*$/i.test(next) ? next : '');
      } catch (err) {
        if (err.reason === 'totp_required') {
          totp.hidden = false;
          totp.querySelector('input').focus();
          throw new Error(t('login.totpRequired'));
        }
        throw err;
      }
    });
  });
  ctx.main.append(h('div', { class: 'center' }, h('p', { class: 'brand big' }, 'Carteiro'), form));
}
