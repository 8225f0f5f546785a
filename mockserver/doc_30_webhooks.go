// # Webhook subscriptions
//
// POST /v1/webhooks (webhooks:write, schema webhookUpsert) creates a
// subscription (201, with "secret" once: whsec_ and the base64 of 24 random
// bytes) or, with id, updates one (200, no secret); only the fields sent
// change, business_id and webhook_url are always required, and business_id
// must be the subscription's own (400 otherwise: a subscription cannot
// move). An id the caller does not reach is 404. GET /v1/webhooks
// (webhooks:read) lists the subscriptions of the key's businesses (or of
// business_id), newest first, paginated (limit 1 to 100, default 50; after):
// {webhooks, has_more}; GET /v1/webhooks?id= reads one; DELETE
// /v1/webhooks?id= (webhooks:write; 400 bad_request without id) answers
// {success, id}. POST /v1/webhooks/rotate-secret (webhooks:write, schema
// webhookRotateSecret) rotates the secret, see below.
//
// The secret appears in no other answer, log or journal, with one
// exception by design: an idempotent replay of the create (the same
// Idempotency-Key and body within 24 hours) returns the first answer,
// secret included, so a client whose first answer was lost still learns
// its secret.
//
// A subscription reads back as {id, business_id, webhook_url, events,
// description, is_active, preset, payload_template, custom_headers,
// http_method, body_format, secret_created_at, previous_secrets [{created_at,
// expires_at}], created_at, updated_at}. Defaults: every event type, active,
// POST, json, the standard body. The URL must be https://, or http:// on a
// loopback host; any https host is accepted, but see "Receivers the mock
// calls".
//
// # Payload templates and presets
//
// payload_template {fields: {name: source}} (at most 100 fields) replaces
// the standard body. A source is a dot path into the standard body
// ("data.lead.email"; array items by index, "data.tags.0"), "a|b" taking the
// first alternative with a non-null value, or a constant {value: string,
// number, boolean or null}. A missing path renders null. A dot in a field
// name nests the output ("contact.email" gives {"contact": {"email": ...}}).
// Our rules beyond the schema, answered 400 invalid_request with a detail
// naming the field: names and paths are dot-separated non-empty segments,
// names at most 200 characters and 10 levels, paths at most 500 characters,
// and no name may be a prefix of another ("a" and "a.b": a value cannot be
// both a leaf and an object). payload_template: null goes back to the
// standard body.
//
// preset (generic_crm, hubspot, salesforce, pipedrive, zoho_crm,
// gohighlevel) expands into payload_template, which reads back in full so
// it can be edited and sent back; the subscription then shows preset null.
// preset is ignored when payload_template is sent. The presets read lead,
// call and SMS data with fallbacks (data.email|data.lead.email, data.phone|
// data.lead.phone|data.to|data.from, data.summary|data.message|data.body|
// data.notes, ...) and add constants such as lifecyclestage "lead"
// (hubspot) or LeadSource "Voice Agent" (salesforce, zoho_crm).
//
// body_format form sends application/x-www-form-urlencoded: object members
// and array items are joined to their parent with dots (contact.email,
// data.tags.0), null is the empty string, numbers and booleans their JSON
// text, keys sorted. The standard body can be sent as a form too.
//
// # Custom headers
//
// custom_headers (at most 20) are sent with every attempt. Names are HTTP
// tokens, stored canonically (x-tenant becomes X-Tenant), case-insensitively
// unique; Content-Type, Host, Content-Length, X-Voiceagent-* and webhook-*
// are rejected; values may not hold CR or LF. The object sent becomes the
// whole set: a string sets a value, null keeps the saved value of that
// header (400 when there is none), names left out are removed, and
// custom_headers: null removes them all. Values are never returned: each
// saved name reads back with a null value, so sending the object back
// unchanged keeps everything. The delivery log shows "[redacted]" instead.
//
// # Secret rotation
//
// POST /v1/webhooks/rotate-secret {id, grace_period_seconds (0 to 604800,
// default 86400)} answers the subscription with the new "secret" (once).
// The previous secrets keep signing until the grace period ends on the
// simulated clock (each ends no later than the new grace period; 0 retires
// them at once), so deliveries carry one v1 signature per active secret,
// space-separated, newest first.
//
// # Deliveries
//
// Every event of a business is delivered to each active subscription of
// that business listing its type: the body is rendered when the event
// happens (standard body {"id", "event", "business_id", "timestamp",
// "data"}, compact JSON without HTML escaping or trailing newline, or the
// template, as JSON or form) and is the same, byte for byte, on every
// attempt. Each attempt reads the subscription as it is then (URL, method,
// custom headers, secrets) and sends
//
//	webhook-id:          the event id (the same on every attempt and on replays)
//	webhook-timestamp:   unix seconds of the wall-clock time of the attempt
//	webhook-signature:   v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}"> per active secret
//	Content-Type:        application/json or application/x-www-form-urlencoded
//	X-Voiceagent-Event:  the event type
//	X-Voiceagent-Attempt: 1, 2, ...
//	User-Agent:          voiceagent-mock-webhooks/1 (unless a custom header sets it)
//
// signed with webhooks.SignHeaders, so webhooks.Verify and any Standard
// Webhooks library accept them. The body's timestamp is the simulated time
// of the event; webhook-timestamp is real time, so receivers keep their
// usual 5-minute tolerance however far a test moved the clock.
//
// A 2xx answer succeeds. Anything else fails the attempt: another status
// (redirects are not followed), no answer within the attempt timeout (10 s
// of real time, WithWebhookTimeout), a refused connection, a refused
// receiver. Attempts follow the fixed schedule: the first at once, then
// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later on the simulated clock
// (8 attempts over 27 h 35 min 5 s); after the eighth failure the delivery
// is failed and stays replayable. The first attempt is posted at once in
// the background; every later attempt runs on the clock and Advance waits
// for its answer, so one Advance runs every attempt due in its window, each
// at its own simulated time. (A receiver must therefore not call Advance
// itself while answering a delivery.) Deleting or deactivating a
// subscription cancels its pending deliveries (status canceled, with a
// reason); reactivating does not bring them back, but canceled deliveries
// can be replayed.
//
// # Receivers the mock calls
//
// Subscription deliveries and per-call webhooks go to https:// URLs, and to
// http:// URLs on loopback hosts (localhost, *.localhost, 127.0.0.0/8,
// ::1); https on loopback accepts self-signed certificates
// (httptest.NewTLSServer works as is). A host outside loopback is refused
// without connecting (the attempt fails with an error saying so) unless the
// server runs WithExternalWebhooks(true) (-allow-external-webhooks); without
// it the dialer also refuses names that resolve outside loopback. Attempts
// of both kinds share one pool: at most 8 in flight at once, more wait.
//
// # Event log
//
// One event bus: every event is recorded in the event log and handed to
// the delivery engine at the moment it happens (simulated time). The
// standard body's data is the resource as the API shows it at that moment.
//
// GET /v1/events (events:read) lists the log of the key's businesses (or of
// business_id), newest first, paginated like every list: {events:
// [{id, event, business_id, timestamp, data, created_at}], has_more};
// ?type= keeps one event type (400 for an unknown one); ?id= reads one
// event. POST /v1/events/replay (events:replay, schema eventsReplay)
// delivers stored events again, with their own ids, to the subscriptions as
// they are now (active, listing the type): either event_ids (1 to 100; 404
// for one the caller does not reach) or since (to until, default no bound,
// optionally only types), optionally within business_id. At most 1,000
// events per call (400 beyond: narrow the window). It answers {events,
// deliveries, delivery_ids}.
//
// # Events emitted
//
// What emits each event type, with the data of its standard body:
//
//	workspace.created            NewAccount, POST /_mock/accounts, signup provisioning, an agency
//	                             enrolling a new client (data: the business)
//	phone_number.assigned        the same, once the number is assigned (data: the number record)
//	workspace.ready              the same, when provisioning completed (data: the business)
//	workspace.provisioning_failed
//	                             signup at @provisioning-fails.example, instead of the two above
//	                             (data: the business and failed_step)
//	call.received                an inbound call rings (data: the call detail)
//	call.started                 a call is answered: outbound 2 s after POST /v1/calls, inbound after
//	                             ringing
//	call.completed               a call ends after a conversation (outbound completed, inbound ended)
//	call.failed                  an outbound call fails (busy, no_answer), an inbound call is not answered
//	voicemail.received           an unanswered caller left a voicemail (data: the call detail)
//	conversation.handoff         an inbound call is transferred to a person ({call_id, conversation_id,
//	                             agent_id, lead_id, from, transfer_to, reason, timestamp})
//	lead.created                 lead collection makes a new lead (data: the lead detail)
//	lead.scored                  a lead's score changes: after lead.created, an interaction, a PATCH
//	sms.received                 an inbound text (data: the message)
//	sms.sent                     POST /v1/sms/send sent a text
//	sms.delivered                two seconds after sms.sent
//	sms.failed                   the carrier refused a text (sms_provider fault, +15005550012)
//	any type                     POST /_mock/events, Server.EmitEvent (a test driver; data as given)
//
// The other types of the API's list (dispatcher.*, phone_number.released
// and .purchased, workspace.paused, .canceled and .teardown_completed,
// lead_email.*, callback.*) are accepted by subscriptions and
// POST /_mock/events, but no simulated behaviour emits them. Agency
// commands emit no event of their own.
//
// # Delivery log (admin)
//
//	GET  /_mock/deliveries?subscription_id=&business_id=&event_id=&event=&status=&min_attempts=&wait=&count=
//	                              {deliveries, cap}: oldest first, with every attempt
//	POST /_mock/deliveries/replay {delivery_id}: send a failed or canceled delivery again
//	POST /_mock/events            {business_id, event, data}: emit an event now
//
// A delivery shows {id, message_id, subscription_id, business_id, event_id,
// event, content_type, body, status (pending, succeeded, failed, canceled),
// attempts [{attempt, at (simulated), sent_at (wall clock), url, method,
// request_headers, status_code, error, duration_ms, response (first 4 KiB)}],
// next_attempt_at, replay_of, reason, created_at}. The log is a ring buffer
// of the newest 10,000 deliveries (WithDeliveryLogSize); Reset empties it.
// ?wait= long-polls until count (default 1) deliveries match. A replay
// (POST /_mock/deliveries/replay, ReplayDelivery) is a new delivery with the
// same webhook-id and body, to the subscription as it is now, with a fresh
// schedule: 404 for an unknown delivery, 409 unless it failed or was
// canceled and its subscription exists and is active.
//
// In Go: Deliveries(DeliveryFilter), WaitDeliveries(ctx, match) and
// WaitDeliveryCount(ctx, n, match) (pass DeliveryFilter{...}.Match),
// ReplayDelivery(id), EmitEvent(businessID, type, data).
package mockserver
