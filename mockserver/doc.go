// Package mockserver is an in-memory, stateful implementation of the whole
// voice agent platform API, for tests and offline development. It runs
// in-process (New is an http.Handler; Start serves it on loopback for a test)
// or as the standalone binary cmd/voiceagent-mock.
//
// It enforces what the real service enforces (authentication, scopes,
// business isolation, JSON Schema validation, rate limits, idempotency) and
// simulates what the real service does over time on a clock that tests
// control.
//
// # Quick start
//
//	srv := mockserver.Start(t)                                  // closed when the test ends
//	acct, _ := srv.NewAccount(mockserver.AccountOptions{})       // business, agent, number, key, session
//	c := client.New(acct.APIKey, voiceagent.WithBaseURL(srv.URL))
//	srv.Advance(5 * time.Minute)                                 // simulated processes run
//
// Every account is its own tenant, so parallel tests can share one server
// without resets.
//
// # Pipeline
//
// Every request takes one path: request id (X-Request-Id on every answer);
// route lookup (unknown path 404 not_found, wrong method 405
// method_not_allowed with Allow); injected faults; body limit (1 MiB, 413
// payload_too_large); authentication (401 unauthorized: missing, invalid,
// expired or revoked key); scopes (403 forbidden); rate limits (429); the
// Idempotency-Key of POSTs; the handler; the usage log and the request
// journal. A handler panic is a 500 internal_error, never a crash. Every
// error has the format {"error": {"code", "message", ...}}; field failures
// add error.details [{path, message}] with JSON Pointer paths.
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
// anyOf expressions; the wildcard scope * grants everything.
//
// # Validation
//
// Request bodies are validated against the JSON Schemas of package openapi
// (the ones GET /v1/schemas serves), with format assertions on and unknown
// properties rejected. Invalid JSON and schema failures are 400
// invalid_request (signup: validation_error); a missing query parameter is
// 400 bad_request; an out-of-range limit or a malformed cursor is 400
// invalid_request (limits are rejected, not clamped).
//
// # Pagination
//
// Lists are newest first; after is the created_at of the last item seen
// (RFC 3339 with nanoseconds). Every record of a table gets a strictly
// increasing created_at (bumped by a nanosecond on ties, so even a frozen
// clock orders records), so a walk never skips or repeats a record while
// records are added. Records are indexed per business in created_at order:
// a page read costs O(log n + page), whatever the store's size.
//
// # Rate limits
//
// The limits of spec section 8, as token buckets per key (per client IP for
// signup): POST /v1/calls 60/min, POST /v1/agents 30/min, PATCH /v1/agents
// 60/min, POST /v1/signup 5/hour per IP, POST /v1/sms/send 60/min, GET
// /v1/analytics/* and GET /v1/transcripts 120/min, every other GET 300/min.
// Other writes are not limited (the spec gives no limit). Limited routes
// answer RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; a 429 adds
// Retry-After in seconds. Windows run on real time plus however far the test
// advanced the clock, so a test can wait a window out or advance past it.
// WithRateLimits(false) switches them off; WithRateLimitScale scales them.
//
// # Idempotency
//
// Every POST honours Idempotency-Key (at most 255 characters), per user (per
// client IP without authentication), for 24 hours of simulated time: a
// replay of the same method, path, query and body returns the first answer
// with Idempotent-Replayed: true; the same key with a different request is
// 409 idempotency_conflict; a duplicate arriving while the first is running
// waits for its answer. Answers produced by fault injection or rate limiting
// are not remembered, so a retry runs the handler.
//
// # Clock
//
// The simulated clock starts at the real time of New (WithStartTime) and
// moves only when a test advances it (Advance, POST /_mock/clock/advance),
// unless WithRealtime(speed) makes it follow real time. Advancing runs every
// simulated process that falls due on the way, in time order, each at its own
// time. Processes due "now" run on the next advance (Advance(0) runs them).
//
// # IDs and determinism
//
// WithIDSeed(n) (flag -id-seed) makes generated ids, keys, OTP codes,
// tokens and simulated durations repeatable run to run.
//
// # Faults
//
// See FaultRule: per route, a status, latency, a dropped connection (before
// or after the handler ran), a truncated body, a probability and a count;
// or a failing simulated dependency (target voice_provider gives
// vendor_error on agent create and update; target storage makes storing a
// new agent fail after its assistant was created, and the assistant is
// removed).
//
// # Admin API
//
// Outside /api, never needs a key, never rate limited or journaled:
//
//	POST   /_mock/reset                 drop all state
//	POST   /_mock/accounts              a ready tenant: {business_name, email, scopes} -> {api_key, business_id, agent_id, phone_number, user_id, session}
//	GET    /_mock/outbox?to=&wait=      emails and texts sent to people (OTP codes, magic links)
//	GET    /_mock/clock                 {now, pending}
//	POST   /_mock/clock/advance         {seconds}: move the clock; due processes run
//	GET    /_mock/requests?method=&path=&wait=  the request journal (last 10,000 requests)
//	GET    /_mock/faults, POST /_mock/faults, DELETE /_mock/faults   fault rules
//
// ?wait= takes a Go duration (at most 60s) and long-polls until something
// matches; the Go helpers (WaitOutbox, WaitRequests) take a context.
//
// # Agents and the voice provider
//
// Agents are created with the greeting "Hello! How can I help you today?",
// voice 11labs/sarah and model openai/gpt-4o-mini at temperature 0.7 unless
// given; each agent has a twin assistant at the simulated voice provider
// (vendor_assistant_id) holding its name, inbound prompt, greeting, voice,
// model and vendor settings. PATCH changes only the fields sent, merges
// metadata, lists the sent field names in updated_fields, and sanitises
// vendor_config: keys outside a fixed list of provider settings (speaking and
// interruption plans, end-call phrases and message, transcriber, analysis,
// artifact, denoising, monitor, silence and max-duration settings, voicemail
// detection) are dropped and listed in ignored_vendor_config_keys.
//
// # Accounts
//
// NewAccount and POST /_mock/accounts provision what signup provisions: a
// user, a business (trial of 14 days), an intake agent with lead collection,
// a number from the pool (+15552000000 upwards; never a magic number), a key
// (every scope by default) and a dashboard session. They emit
// workspace.created, phone_number.assigned and workspace.ready.
package mockserver
