// Package webhooks holds the platform's webhook subscriptions, managed
// through the client (c.Webhooks, CRUD over /v1/webhooks), and the helpers a
// receiver uses to accept deliveries: signature verification, event decoding
// and a ready [http.Handler].
//
// # Signing scheme
//
// Deliveries follow Standard Webhooks (https://www.standardwebhooks.com), so
// any Standard Webhooks library verifies them too. Each delivery carries
//
//	webhook-id:        the message id, the same on every retry of the delivery
//	webhook-timestamp: unix seconds of the attempt (wall-clock time)
//	webhook-signature: v1,<base64 signature> [v1,<base64 signature> ...]
//
// where each signature is the standard base64 of
// HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{raw body}"), one per
// active secret of the subscription (two while a secret is being rotated). A
// signing secret is "whsec_" followed by the standard base64 of 24 random
// bytes ([NewSecret]); the HMAC key is the base64-decoded part after
// "whsec_". The secret is returned once, when the subscription is created:
// store it at once. Deliveries also carry X-Voiceagent-Event (the event type)
// and X-Voiceagent-Attempt (1, 2, ...), which are not signed.
//
// The standard body is
//
//	{"id": "...", "event": "lead.created", "business_id": "...", "timestamp": "...", "data": {...}}
//
// with the resource of the event in data ([Event], [Parse]), as the API
// shows it at the moment of the event; [Event.Call], [Event.Lead],
// [Event.Message], [Event.Handoff], [Event.PhoneNumber] and
// [Event.Workspace] decode it by family. The webhook_url
// of a call instead receives the flat body of [CallWebhook]
// ([ParseCallWebhook]), with a webhook-id header but no signature (no secret
// belongs to it); see [WithUnsignedCallWebhooks].
//
// # Receiving
//
// Verify the signature over the raw body before trusting anything in it, and
// deduplicate by webhook-id: the platform retries a delivery until it gets a
// 2xx (immediately, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h),
// so the same message can arrive more than once. Three levels of help:
//
//   - [Verify] checks headers and body against one or more secrets, with a
//     tolerance of 5 minutes on the timestamp ([WithTolerance]);
//   - [ConstructEvent] verifies and decodes in one call;
//   - [Handler] does it all as an [http.Handler]: body size cap, verification,
//     deduplication through a [DedupeStore] (in memory by default), dispatch
//     by event type ([Handler.On]), and the status codes the platform's
//     retries expect. Make it before the subscription (which needs its URL)
//     and give it the secret the subscription's create answer brings with
//     [Handler.SetSecrets]; until then it answers signed deliveries 503,
//     which the platform retries.
//
// [Sign] and [SignHeaders] produce signatures: the mock server signs its
// deliveries with them, and receivers use them to build signed requests in
// their tests.
package webhooks
