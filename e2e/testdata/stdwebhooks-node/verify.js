// Verifies one captured Carteiro webhook delivery with the official Standard
// Webhooks library (D76), as a Node receiver would. Run by
// e2e/webhooks_standard_test.go.
//
// Input on stdin, JSON: {"secret": "...", "raw": false, "headers": {...},
// "body": "<base64 of the raw body>"}. "raw" true passes the secret's bytes
// as the key (a secret that is not whsec_<base64>).
//
// Exit status: 0 verified; 1 the library refused the delivery
// (WebhookVerificationError); 2 anything else (bad input, library missing).
"use strict";

let Webhook, WebhookVerificationError;
try {
  ({ Webhook, WebhookVerificationError } = require("standardwebhooks"));
} catch (err) {
  console.error(`cannot load standardwebhooks (run npm ci here): ${err.message}`);
  process.exit(2);
}

const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  let input;
  try {
    input = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch (err) {
    console.error(`bad input: ${err.message}`);
    process.exit(2);
  }
  const wh = input.raw ? new Webhook(input.secret, { format: "raw" }) : new Webhook(input.secret);
  const body = Buffer.from(input.body, "base64");
  try {
    wh.verify(body, input.headers);
  } catch (err) {
    if (err instanceof WebhookVerificationError) {
      console.error(`${err.name}: ${err.message}`);
      process.exit(1);
    }
    console.error(`error: ${err.stack || err}`);
    process.exit(2);
  }
  console.log("verified");
});
