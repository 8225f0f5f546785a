// Package mockserver is an in-memory, stateful implementation of the whole
// voice agent platform API, for tests and offline development. It runs
// in-process (New is an http.Handler; Start serves it on loopback for a test)
// or as the standalone binary cmd/voiceagent-mock.
//
// It enforces what the real service enforces (authentication, scopes,
// business isolation, JSON Schema validation, rate limits, idempotency) and
// simulates what the real service does over time on a clock that tests
// control. This documentation is the mock's user guide: what it does, and
// every decision the API's specification leaves open.
//
// # Quick start
//
//	srv := mockserver.Start(t)                                  // closed when the test ends
//	acct, _ := srv.NewAccount(mockserver.AccountOptions{})       // business, agent, number, key, session
//	c := client.New(acct.APIKey, voiceagent.WithBaseURL(srv.URL))
//	srv.Advance(5 * time.Minute)                                 // simulated processes run
//
// Every account is its own tenant, so parallel tests can share one server
// without resets. Standalone, for test suites in any language:
//
//	go run ./cmd/voiceagent-mock              # 127.0.0.1:8080; prints the base URL and a demo key
//	go run ./cmd/voiceagent-mock -seed none -id-seed 42 -rate-limits=false -speed 60
//
// # Contents
//
// The sections below come in this order:
//
//   - The server: Pipeline, Authentication and scopes, Validation,
//     Pagination, Rate limits, Idempotency, Clock, IDs and determinism,
//     Faults, Magic values, Admin API, Limits and retention.
//   - Accounts and identity: Accounts, Signup, Dashboard sessions, API keys.
//   - Telephony: Agents and the voice provider, Calls, Call states,
//     Enrichment, Per-call webhooks, Leads, SMS, Telephony admin API.
//   - Webhooks and events: Webhook subscriptions, Payload templates and
//     presets, Custom headers, Secret rotation, Deliveries, Receivers the
//     mock calls, Event log, Events emitted, Delivery log.
//   - Account reads: balance, usage, capabilities, schemas.
//   - Agency management: Agencies, members and roles, Guards and error
//     codes, Idempotency of agency commands, Agency receipts, Offers,
//     Enrollment sessions, Installations, Agency reads, Retained commands
//     (503).
//   - Catalog, runs and governance: Products and knowledge, Communication
//     runs, Governed updates, Approval requests, Persona loading, Calls and
//     texts of runs and approvals.
//   - Outbound sales and analytics: Outbound-sales pipeline (SDR), SDR
//     configuration, Segments, Next actions and cadence, Pipeline read,
//     Actions, Runs, Scheduled runner, SDR report and activity, Analytics,
//     Fixtures.
//   - The OpenAPI document.
//   - Reliability: Performance and load, Fault injection for reliability
//     tests, Concurrency, Security properties, Fuzzing.
//
// # Pipeline
//
// Every request takes one path: request id (X-Request-Id on every answer);
// route lookup (unknown path 404 not_found, wrong method 405
// method_not_allowed with Allow); injected faults; body limit (1 MiB, 413
// payload_too_large); authentication (401 unauthorized: missing, invalid,
// expired or revoked key); scopes (403 forbidden); rate limits (429); the
// Idempotency-Key of POSTs; the handler; the usage log and the request
// journal.
//
// Every error has the format {"error": {"code", "message", ...}}; field
// failures add error.details [{path, message}] with JSON Pointer paths. A
// handler that panics answers 500 internal_error, never a crash; with an
// Idempotency-Key that answer is the one recorded, so duplicates waiting for
// it and later retries are answered (replayed) instead of waiting forever.
//
// Every API request is journaled (GET /_mock/requests), unknown paths under
// /api included (404), so a client calling a wrong path shows up there; the
// admin API never is. The journal and the usage log are written before the
// answer, so a client that has its answer finds its request in both. The
// Authorization scheme is case-insensitive (bearer works as Bearer does).
//
// # Authentication and scopes
//
// Keys are voiceagent_live_ followed by 40 base62 characters; a key's prefix
// is its first 20 characters; only a SHA-256 of each key is kept, compared
// in constant time. A key reaches one business (business_id) or all its
// user's businesses; a partner key reaches only the businesses its partner
// created. A key of another tenant gets 404 not_found for records (absent and
// inaccessible look the same) and 403 forbidden for a business_id it names.
// Dashboard sessions (cookie voiceagent_session) act as their user with
// every scope. Scope requirements may be a single scope or nested allOf and
// anyOf expressions; the wildcard scope * grants everything. Server.Routes
// lists every route with the credentials and scopes it needs.
//
// # Validation
//
// Request bodies are validated against the JSON Schemas of package openapi
// (the ones GET /v1/schemas serves), with format assertions on and unknown
// properties rejected. Invalid JSON and schema failures are 400
// invalid_request (signup: validation_error); a missing query parameter is
// 400 bad_request; an out-of-range limit or a malformed cursor is 400
// invalid_request (limits are rejected, not clamped). Bad input never gives
// a 5xx.
//
// # Pagination
//
// Lists are newest first; after is the created_at of the last item seen
// (RFC 3339 with nanoseconds). Every record of a table gets a strictly
// increasing created_at (bumped by a nanosecond on ties, so even a frozen
// clock orders records), so a walk never skips or repeats a record while
// records are added. Records are indexed per business in created_at order:
// a page read costs O(log n + page), whatever the store's size. The agency
// reads page by record id instead (see Agency reads).
//
// # Rate limits
//
// The limits of spec section 8, as token buckets per key (per client IP for
// signup): POST /v1/calls 60/min, POST /v1/agents 30/min, PATCH /v1/agents
// 60/min, POST /v1/signup 5/hour per IP, POST /v1/sms/send 60/min, GET
// /v1/analytics/* and GET /v1/transcripts 120/min, every other GET 300/min.
// Other writes are not limited (the spec gives no limit). Limited routes
// answer RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset, replays
// included; a 429 adds Retry-After in seconds. Windows run on real time plus
// however far the test advanced the clock, so a test can wait a window out
// or advance past it. WithRateLimits(false) (-rate-limits=false) switches
// them off; WithRateLimitScale scales them.
//
// # Idempotency
//
// Every POST honours Idempotency-Key (at most 255 characters; agency
// commands 150), per user (per client IP without authentication), for 24
// hours of simulated time: a replay of the same method, path, query and body
// returns the first answer with Idempotent-Replayed: true; the same key with
// a different request is 409 idempotency_conflict; a duplicate arriving
// while the first is running waits for its answer. Answers produced by fault
// injection or rate limiting are not remembered, so a retry runs the
// handler.
//
// # Clock
//
// The simulated clock starts at the real time of New (WithStartTime) and
// moves only when a test advances it (Advance, POST /_mock/clock/advance),
// unless WithRealtime(speed) (-realtime, -speed) makes it follow real time.
// Advancing runs every simulated process that falls due on the way, in time
// order, each at its own time: calls ringing and ending, texts delivered,
// webhook retries, retained agency commands, forgotten signup challenges.
// Processes due "now" run on the next advance (Advance(0) runs them). Expiry
// (signup codes and links, idempotency keys, invites) is measured on the
// same clock.
//
// # IDs and determinism
//
// WithIDSeed(n) (flag -id-seed) makes generated ids, keys, OTP codes,
// tokens, webhook secrets and which requests a probabilistic fault hits
// repeatable run to run. Simulated durations never depend on the seed: they
// are derived from the phone numbers involved.
//
// # Faults
//
// A FaultRule (AddFault, WithFaults, POST /_mock/faults) matches requests
// by method and path (a trailing * is a prefix), with a probability and a
// count. With target request (the default) it acts on the HTTP exchange: a
// status, a latency (ending early when the client goes away), a dropped
// connection (before the handler runs, or after it: the work happens and the
// answer is lost), or a truncated answer. Other targets make a simulated
// dependency fail inside the handler, which answers as the real service
// would:
//
//	voice_provider   vendor_error on agent create and update and on POST /v1/calls; agency enrollments
//	                 keep new clients waiting (see Enrollment sessions)
//	storage          storing a new agent fails after its assistant was created; the assistant is removed
//	sms_provider     500 sms_send_failed; the text is logged as failed (sms.failed)
//	dependency       agency reads answer 503 and agency commands are retained (see Retained commands)
//
// # Magic values
//
// Like a payment provider's test cards:
//
//	call to +15005550001              the call fails after 30 s of ringing: error no_answer, call.failed
//	call to +15005550002              the call fails after 2 s: error busy, call.failed
//	call to +15005550003              POST /v1/calls answers 500 call_failed; no call is recorded
//	any other valid call to           completes after 30 to 300 s derived from the number, with
//	                                  transcript, summary, recording URL and quality dimensions
//	text to +15005550010              400 number_on_dnc
//	text to +15005550011              400 number_opted_out
//	text to +15005550012              500 sms_send_failed (reaches the carrier: logged as failed, sms.failed)
//	text to +15005550013              400 tcpa_violation
//	signup email @provisioning-fails.example
//	                                  503 provisioning_failed with the key and recovery paths
//	signup activation_mode payment    402 payment_required unless the request carries an X-PAYMENT header
//	                                  (any non-blank value)
//
// Magic text numbers need no consent and are checked before the
// do-not-call and consent lists. New accounts' numbers come from a pool
// (+15552000000 upwards) that never holds a magic number.
//
// # Admin API
//
// Outside /api, never needs a key, never rate limited or journaled. Each
// route has a Go helper on Server doing the same in-process. ?wait= takes a
// Go duration (at most 60s) and long-polls until something matches; the Go
// helpers (WaitOutbox, WaitRequests, WaitDeliveries) take a
// context and a predicate instead.
//
//	POST   /_mock/reset                 drop all state                                           Reset
//	POST   /_mock/accounts              a ready tenant (see Accounts)                            NewAccount
//	GET    /_mock/outbox?to=&wait=      emails and texts sent to people (codes, links)           Outbox, WaitOutbox
//	GET    /_mock/clock                 {now, pending}                                           Now
//	POST   /_mock/clock/advance         {seconds}: move the clock; due processes run             Advance
//	GET    /_mock/requests?method=&path=&wait=
//	                                    the request journal                                      Requests, WaitRequests
//	GET    /_mock/faults                the fault rules
//	POST   /_mock/faults                add a fault rule (a FaultRule)                           AddFault
//	DELETE /_mock/faults                remove every fault rule                                  ClearFaults
//	POST   /_mock/inbound-call          a caller rings a number (see Telephony admin API)        InboundCall
//	POST   /_mock/inbound-sms           a person texts a number                                  InboundSMS
//	POST   /_mock/dnc                   do-not-call entries                                      AddDNC, RemoveDNC
//	POST   /_mock/consent, GET /_mock/consent
//	                                    SMS consent                                              SetConsent, Consent
//	GET    /_mock/provider-calls        what the voice provider received for a call              ProviderCall
//	GET    /_mock/prompt-audit          the prompt audit trail                                   PromptAudit
//	GET    /_mock/deliveries            webhook deliveries of both kinds (see Delivery log)      Deliveries, WaitDeliveries
//	POST   /_mock/deliveries/replay     send a failed or canceled delivery again                 ReplayDelivery
//	POST   /_mock/events                emit an event now                                        EmitEvent
//
// # Limits and retention
//
//	request body                        1 MiB (WithMaxBodyBytes); 413 payload_too_large beyond
//	list pages                          per endpoint, typically default 50 and at most 100 (transcripts 20/50,
//	                                    usage 100/500); out-of-range limits are 400
//	?wait= on admin routes              at most 60 s
//	Idempotency-Key                     at most 255 characters (agency: 150); remembered 24 h of simulated time
//	request journal                     the newest 10,000 requests (WithJournalSize), a ring buffer
//	delivery log                        the newest 10,000 deliveries (WithDeliveryLogSize), a ring buffer
//	webhook attempts                    10 s timeout each (WithWebhookTimeout), at most 8 in flight, 8 attempts
//	                                    per delivery; receivers' answers kept to their first 4 KiB
//	signup                              codes expire after 10 minutes, challenges are forgotten 24 h later;
//	                                    magic links last 15 minutes, password links 7 days, sessions 30 days
//	usage log                           not bounded: one small record per authenticated request
//
// Reset (POST /_mock/reset) drops all of it.
package mockserver
