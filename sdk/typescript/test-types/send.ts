// Compiled by `npm run typecheck` (tsc --noEmit), never run. Each
// expect-error directive below must meet an error: if the generated types
// stop rejecting a wrong send, tsc reports the directive as unused and fails.
import { Carteiro, type SendEmailRequest } from "../src/index.js";

const client = new Carteiro({ apiKey: "re_test", baseUrl: "http://127.0.0.1:1" });

// Valid sends compile, with template variables of any JSON type (D20).
export const valid: SendEmailRequest = {
  from: { email: "hello@example.com", name: "Example" },
  to: ["a@example.com", { email: "b@example.com" }],
  subject: "Welcome",
  templateId: "tpl_1",
  variables: { x: 1, name: "Ana", items: [1, 2], nested: { ok: true }, none: null },
  tags: [{ name: "kind", value: "welcome" }],
  headers: { "X-Campaign": "spring" },
};
export const sent = client.sendEmail({ from: "a@example.com", to: "b@example.com", subject: "Hi", text: "Hello" });

// A misspelled field is refused (the server would answer 422, D12).
// @ts-expect-error fromm is not a field of SendEmailRequest
export const misspelled: SendEmailRequest = { fromm: "a@example.com", to: "b@example.com", text: "x" };

export const misspelledInCall = client.sendEmail({
  from: "a@example.com",
  to: "b@example.com",
  // @ts-expect-error subjet is not a field of SendEmailRequest
  subjet: "Hi",
  text: "x",
});

// Wrong types are refused too.
// @ts-expect-error to takes addresses, not a number
export const wrongType: SendEmailRequest = { from: "a@example.com", to: 42, text: "x" };

// @ts-expect-error from is required
export const missingFrom: SendEmailRequest = { to: "b@example.com", text: "x" };

// The raw client is typed as well: the path, the parameters and the body.
export const raw = client.api.POST("/emails", {
  body: { from: "a@example.com", to: "b@example.com", html: "<p>Hi</p>", variables: { count: 3 } },
});
// @ts-expect-error /emails/{id} needs its path parameter
export const rawMissingParam = client.api.GET("/emails/{id}", {});
export const rawGet = client.api.GET("/emails/{id}", { params: { path: { id: "x" } } }).then(({ data }) => data?.status);

// Errors carry their parts with types.
export function describe(err: unknown): string {
  if (err instanceof Error && "code" in err) {
    return String(err.code);
  }
  return "";
}
