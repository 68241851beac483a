// The README's tour with the TypeScript client, as docs/sdk.md shows it:
// type-checked by `npm run typecheck`, and test/offline/docs.test.mjs checks
// that every TypeScript block of docs/sdk.md is found here word for word.
import { Carteiro, CarteiroError, unwrap, verifyWebhook } from "../src/index.js";

export async function tour(hookUrl: string, senderToken: () => Promise<string>): Promise<void> {
// --- setup
const carteiro = new Carteiro({
  apiKey: process.env.CARTEIRO_KEY!, // the live key of the first start
  baseUrl: "http://localhost:8080",
  acceptLanguage: "en",
});
// --- end

// --- domain
const domain = await unwrap(carteiro.api.POST("/domains", { body: { name: "example.com" } }));
console.log(domain.records); // publish these at your DNS provider
const check = await unwrap(carteiro.api.POST("/domains/{id}/verify", { params: { path: { id: domain.id } } }));
console.log(check.status); // "pending" until the records are seen, then "verified"
// --- end

// --- send
const sent = await carteiro.sendEmail({
  from: "Me <me@example.com>",
  to: ["ana@example.net"],
  subject: "Hello",
  html: "<p>Hi Ana</p>",
  tags: [{ name: "category", value: "welcome" }],
});
console.log(sent.id, sent.status); // "queued"; retried sends reuse one idempotency key
const timeline = await unwrap(carteiro.api.GET("/emails/{id}/events", { params: { path: { id: sent.id } } }));
console.log(timeline.events.map((e) => e.type));
// --- end

// --- sender
await carteiro.api.POST("/senders", { body: { email: "me@example.org", displayName: "Me" } });
await carteiro.api.POST("/senders/verify", { body: { token: await senderToken() } });
// --- end

// --- webhook
const hook = await unwrap(carteiro.api.POST("/webhooks", {
  body: { url: hookUrl, events: ["email.sent", "email.delivered", "email.bounced"], secret: "change-me-to-a-long-random-secret" },
}));
// In the receiver, with the raw body as it arrived (node:http, Express's express.raw(), ...):
function onWebhook(rawBody: Buffer, headers: Record<string, string | string[] | undefined>) {
  const event = verifyWebhook(rawBody, headers, "change-me-to-a-long-random-secret"); // throws if forged or stale
  console.log(event.type, event.data);
}
// --- end

// --- suppress
await carteiro.api.POST("/suppressions", { body: { email: "bob@example.net", reason: "manual" } });
for await (const s of carteiro.listSuppressions({ status: "active" })) {
  console.log(s.email, s.reason);
}
// --- end

// --- stats
const stats = await unwrap(carteiro.api.GET("/stats", { params: { query: { granularity: "month" } } }));
console.log(stats.totals);
for await (const email of carteiro.listEmails({ status: "bounced" })) {
  console.log(email.id, email.to, email.lastError); // every page, newest first
}
// --- end

// --- errors
try {
  await carteiro.api.POST("/domains", { body: { name: "Example.COM." } });
} catch (err) {
  if (err instanceof CarteiroError) {
    console.log(err.status, err.code, err.details.id, err.requestId); // 409 CONFLICT <the existing domain>
  }
}
try {
  await carteiro.sendEmail({ from: "me@example.com", to: "not an address", subject: "x", text: "x" });
} catch (err) {
  if (err instanceof CarteiroError && err.code === "VALIDATION_ERROR") {
    console.log(err.field, err.reason); // "to" and why
  }
}
// --- end

// --- templates
const template = await unwrap(carteiro.api.POST("/templates", {
  body: {
    name: "welcome",
    subject: "Welcome, {{name}}",
    html: "<h1>Hi {{name}}</h1>{{#if plan}}<p>Your plan: {{plan}}</p>{{/if}}",
    variables: [{ name: "name" }, { name: "plan", defaultValue: "free" }],
  },
}));
await carteiro.sendEmail({ from: "Me <me@example.org>", to: "ana@example.net", templateId: template.id, variables: { name: "Ana" } });
// --- end

// --- broadcast
const audience = await unwrap(carteiro.api.POST("/audiences", { body: { name: "Newsletter" } }));
await carteiro.api.POST("/audiences/{id}/contacts/bulk", {
  params: { path: { id: audience.id } },
  body: { contacts: [{ email: "ana@example.net", firstName: "Ana" }, { email: "carla@example.net", firstName: "Carla" }] },
});
const broadcast = await unwrap(carteiro.api.POST("/broadcasts", {
  body: {
    audienceId: audience.id,
    fromEmail: "News <news@example.org>",
    subject: "Hi {{contact.firstName}}",
    html: '<p>Hello {{contact.firstName}}.</p><p><a href="{{unsubscribeUrl}}">Unsubscribe</a></p>',
  },
}));
await carteiro.api.POST("/broadcasts/{id}/send", { params: { path: { id: broadcast.id } } });
// --- end

// --- inbound
// Turn receiving on for a verified domain, and publish the MX it answers.
const inbound = await unwrap(carteiro.api.POST("/domains/{id}/inbound", { params: { path: { id: domain.id } }, body: { enabled: true } }));
console.log(inbound.mx.host, inbound.mx.type, inbound.mx.priority, inbound.mx.value);
for await (const mail of carteiro.listInboundEmails({ toAddress: "support@example.com" })) {
  const full = await unwrap(carteiro.api.GET("/inbound-emails/{id}", { params: { path: { id: mail.id } } }));
  console.log(mail.from, mail.subject, mail.spf, mail.dkim, mail.dmarc, full.text);
  for (const att of mail.attachments) {
    const bytes = await unwrap(carteiro.api.GET("/inbound-emails/{id}/attachments/{attachmentId}", {
      params: { path: { id: mail.id, attachmentId: att.id } },
      parseAs: "arrayBuffer",
    }));
    console.log(att.filename, att.contentType, bytes.byteLength);
  }
  await carteiro.api.DELETE("/inbound-emails/{id}", { params: { path: { id: mail.id } } });
}
// --- end

void hook;
void onWebhook;
}
