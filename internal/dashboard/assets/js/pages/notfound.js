import { h } from '../dom.js';
import { t } from '../i18n.js';

export async function render(ctx) {
  ctx.main.append(h('h1', {}, t('notFound')), h('p', {}, h('a', { href: '/dashboard/' }, t('nav.overview'))));
}
