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
// (hubspot) or LeadSource "Voice Agent" (salesforce, zoho_crm). The phone
// fallback suits lead events, texts sent and outbound calls (data.to is
// the person called); on inbound call and sms.received events data.to is
// the business's own number, so edit the expanded map to read data.from
// there (or subscribe the CRM to lead.* events, whose data.phone is the
// caller's).
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
// Which action emits which event, in the order emitted:
//
//	action                                   events (data)
//	NewAccount, POST /_mock/accounts,        workspace.created (the business), phone_number.assigned
//	signup, agency enrollment of a new       (the number record), workspace.ready (the business)
//	client
//	signup at @provisioning-fails.example    workspace.created, workspace.provisioning_failed (the business
//	                                         and failed_step: phone_number)
//	POST /v1/calls, then on the clock:
//	  answered, 2 s later                    call.started (the call detail, as GET /v1/calls?id=)
//	  ends, the duration later               lead.scored (the call's lead, when its score changed),
//	                                         call.completed; then the call's per-call webhook
//	  busy (2 s) or not answered (30 s)      call.failed; then the call's per-call webhook
//	POST /_mock/inbound-call, InboundCall    call.received (the call detail)
//	  answered, 2 s later (ring-first: 20 s) call.started
//	  ends, the duration later               lead.created and lead.scored (a new caller: the lead detail)
//	                                         or lead.scored (a known caller whose score changed),
//	                                         conversation.handoff (when transferred), call.completed
//	  not answered, 30 s later               the lead events as above, voicemail.received (when a
//	                                         voicemail was left), call.failed
//	POST /_mock/inbound-sms, InboundSMS      lead.created and lead.scored (a new number, not a STOP or
//	                                         START keyword) or lead.scored (a known lead whose score
//	                                         changed), sms.received (the message)
//	POST /v1/sms/send                        sms.sent (the message), lead.scored (the thread's lead, when
//	                                         its score changed); 2 s later sms.delivered
//	  refused by the carrier                 sms.failed (to +15005550012 or with an sms_provider fault;
//	                                         a text refused by the checks before emits nothing)
//	PATCH /v1/leads                          lead.scored when the score changed
//	POST /_mock/events, EmitEvent            any of the 27 types, with the data given (test driver)
//
// No action of the mock emits dispatcher.briefing_created,
// dispatcher.handoff_dispatched, phone_number.released,
// phone_number.purchased, workspace.paused, workspace.canceled,
// workspace.teardown_completed, lead_email.sent, lead_email.failed,
// callback.scheduled or callback.completed: it has no dispatcher, number
// purchase or release, workspace lifecycle, lead email or callback
// actions. Subscriptions may list them; emit them with EmitEvent or POST
// /_mock/events to test a receiver. The data shapes are documented with
// each resource (see Telephony events); in Go, webhooks.Event.Call (call.*
// and voicemail.received), Lead, Message, Handoff, PhoneNumber and
// Workspace read them, one field per member.
//
// # Delivery log (admin)
//
// One delivery log holds both kinds of deliveries: subscription deliveries
// (kind subscription) and the per-call webhooks of calls created with
// webhook_url (kind call_webhook, see Per-call webhooks in the calls
// section). Both run on the engine above: one retry schedule
// (WebhookRetrySchedule), one attempt record, one ring buffer.
//
//	GET  /_mock/deliveries?kind=&subscription_id=&call_id=&business_id=&event_id=&event=&status=&min_attempts=&wait=&count=
//	                              {deliveries, cap}: oldest first, with every attempt
//	POST /_mock/deliveries/replay {delivery_id}: send a failed or canceled delivery again
//	POST /_mock/events            {business_id, event, data}: emit an event now
//
// A delivery shows {id, kind (subscription or call_webhook), message_id
// (the webhook-id), subscription_id (subscriptions) or call_id (per-call
// webhooks), business_id, event_id, event, content_type, body, status
// (pending, succeeded, failed, canceled), attempts [{attempt, at
// (simulated), sent_at (wall clock), url, method, request_headers,
// status_code, error, duration_ms, response (first 4 KiB)}],
// next_attempt_at, replay_of, reason, created_at}. event_id of a per-call
// webhook is its call.completed or call.failed event, so filtering by
// event_id alone finds both the subscriptions' deliveries of a call event
// and the call's own webhook: add kind to tell them apart. kind must be
// subscription or call_webhook and status one of the four (400 otherwise).
// The log is a ring buffer of the newest 10,000 deliveries
// (WithDeliveryLogSize); Reset empties it. ?wait= long-polls until count
// (default 1) deliveries match. A replay (POST /_mock/deliveries/replay,
// ReplayDelivery) is a new delivery with the same webhook-id and body and
// a fresh schedule, to the subscription as it is now or to the call's
// webhook_url: 404 for an unknown delivery, 409 unless it failed or was
// canceled and, for a subscription delivery, its subscription exists and
// is active. Only subscription deliveries are ever canceled.
//
// In Go: Deliveries(DeliveryFilter), WaitDeliveries(ctx, match) and
// WaitDeliveryCount(ctx, n, match) (pass DeliveryFilter{...}.Match),
// ReplayDelivery(id), EmitEvent(businessID, type, data).
package mockserver
