// # Performance and load
//
// The throughput target is measured over loopback with keep-alive
// connections, next to a bare net/http handler that writes the mock's own
// answer byte for byte, in the same run (the machines are shared: compare
// ratios, not absolute figures):
//
//	go run ./cmd/voiceagent-load -duration 3s -concurrency 8 -rounds 3
//	go test ./mockserver -run '^$' -bench 'BenchmarkLoopback|BenchmarkPipeline' -count 5
//
// The load command seeds a tenant with 10,000 leads (-records) from inbound
// texts and drives GET /v1/agents, GET /v1/leads?limit=100, POST /v1/calls
// (each with a fresh Idempotency-Key) and PATCH /v1/leads, alternating the
// mock and the bare handler -rounds times; it prints requests per second,
// p50 and p99 latency and the mock's share of the bare throughput
// (overall, and its range over the rounds). The server runs as a load test
// wants it: rate limits off (WithRateLimits(false); the buckets are not even
// looked up), and authentication, scopes, idempotency, the usage log and
// the request journal on. BenchmarkLoopback is the same as a benchmark;
// BenchmarkPipeline sends the same requests through ServeHTTP in-process,
// which isolates the mock's own cost and is what profiles are taken of:
//
//	go test ./mockserver -run '^$' -bench 'BenchmarkPipeline/GET_/v1/leads' -cpuprofile cpu.out
//
// Benchmarks report cpu-ns/op beside ns/op: the process's CPU time per
// operation (client, server and garbage collector), which stays meaningful
// when other work shares the cores and wall time does not.
//
// Other figures: BenchmarkScale (filtered pages of 100 from 10,000 and from
// 1,000,000 leads and calls, and the bytes each stored lead and call take;
// it builds a store of two million records, so it runs only when asked),
// BenchmarkDeliveryRoundTrip in package webhooks (events signed, delivered
// to a loopback receiver and verified there, per second), and
// BenchmarkSDKOverhead in package client (the SDK's Leads.Get and
// Calls.Create next to the same requests written with net/http and
// encoding/json, against the mock and against a canned answer).
//
// What the profiles showed, and what changed:
//
//   - Encoding answers built as map[string]any (sorted keys, a boxed value
//     per field) was most of a list read. The hot views (a lead, a page of
//     leads, the agent list) are structs that append their own JSON, byte
//     for byte what encoding/json writes for the same struct without HTML
//     escaping (TestAppendersMatchEncodingJSON and the fuzz targets
//     FuzzAppendJSONString and FuzzAppendJSONTime check it); time stamps of
//     years 1 to 9999 in UTC are formatted directly (time.Time's
//     MarshalJSON was re-scanned and compacted by encoding/json).
//   - Answers are encoded into pooled buffers: a GET answer is written
//     straight from its buffer, other answers are copied out once at their
//     size (they may be kept for idempotent replays), instead of growing a
//     fresh buffer by doubling per answer.
//   - Ids came from crypto/rand: a system call per id, two per request.
//     They come from a ChaCha8 stream seeded from crypto/rand (or from
//     WithIDSeed), as cryptographically strong.
//   - The query was parsed again for every parameter a handler read; it is
//     parsed once per request. The journal keeps the raw query as sent
//     (re-encoded only when it may hold a secret parameter).
//   - The usage log, which gains an entry per request, kept an id index
//     nobody reads; it is a log table without one.
//   - Webhook deliveries kept 4 idle connections for 8 workers, so half the
//     deliveries dialled anew; each worker keeps one.
//
// Lists walk a business's records newest first and filter on the way, so
// a filtered page costs O(log n + limit / selectivity) however many
// records the business has; a filter that matches nothing walks the
// business's whole history (there are no secondary indexes, except the
// exact phone and email lookups of leads).
//
// # Fault injection for reliability tests
//
// FaultRule (POST /_mock/faults, WithFaults, AddFault) fails requests per
// route (method and path or path prefix), with a probability and a count:
// a status (429 with Retry-After: 1 unless retry_after says otherwise, 500,
// 502, 503, or any 4xx/5xx), a latency, a dropped connection (before the
// handler, or after it so the work happens and the answer is lost), or a
// truncated answer. Faults never touch the admin API. Faults answered
// before the handler are not remembered for idempotent replays; answers
// lost after the handler are, so a retry carrying the same
// Idempotency-Key gets the first answer. A latency fault holds the request
// before its body is read: a client that gives up meanwhile is noticed only
// when the latency ends, and the handler then runs (the work happens, the
// answer is lost, as with a timeout in production).
//
// TestEveryWriteHappensExactlyOnceThroughFaults places calls, sends texts
// and updates leads through the SDK (retries on, a per-attempt timeout)
// while 30% of the requests fail one way (a run per way) or every way at
// once, and checks that each happened exactly once. Leads have no create
// endpoint (they come from inbound calls and texts), so the lead write is
// PATCH /v1/leads of leads made beforehand by inbound texts through the
// admin API (which faults do not touch). A PATCH carries no
// Idempotency-Key: it is idempotent by itself, which the test checks by
// the lead's final state and its rescoring, counted once.
//
// # Concurrency
//
// TestStressEveryWriteRouteConcurrently runs 32 goroutines that mix every
// write route of the API on two shared tenants (with -race in go test),
// while a reader walks pages; then it checks counts, ids (each once),
// pagination walks (no repeat, strictly older), merged agent metadata (no
// update lost), each lead's updated_at (one per update, the lead showing
// the last), that two creates with one Idempotency-Key made one call, and
// that the agency profile's and offers' accepted updates form one chain of
// revisions (exactly one winner per expectedRevision). A write route without
// a writer in its table fails the test.
//
// # Security properties
//
// Keys are kept as their SHA-256 and their 20-character prefix only, and
// looked up by hash (a map of hashes, then a constant-time comparison of
// the hash), so no comparison runs over a key. Idempotency records, which
// keep answers that may carry a key value (POST /v1/keys, signup,
// issue_key) or a signing secret for 24 hours, are filed under a hash of
// the caller and the Idempotency-Key and sealed (AES-256-GCM) with a key
// derived from them by another hash: only a request presenting the same
// Idempotency-Key opens one. TestTheServerKeepsNoKeyValue mints keys every
// way and walks the whole state for any key value.
//
// TestScopeMatrix calls every authenticated route of the route table with
// keys lacking its scope requirement, each way of lacking it (a single
// scope; each member of allOf; every member of anyOf at once): 403 naming
// the requirement. Session-only routes refuse bearer keys (401); the routes
// that need no authentication and those that need only a valid key are
// listed in the test, so a new route is covered at once or fails.
// TestCrossTenantMatrix sends requests naming another tenant's records from
// another user's key and from a key of the same user restricted to another
// business: 403 for a business named, 404 for a record (absent and
// inaccessible look the same), reads that show nothing of the other
// tenant's; a route without cases in its table fails the test.
//
// Custom header values of subscriptions are never shown (not in answers,
// reads, the delivery log, which shows "[redacted]", the journal, the usage
// log, nor the server's log); a signing secret appears only in the answer
// that made it (create, rotate-secret) and its idempotent replay. With
// WithLogger at debug level the server logs one line per request: request
// id, method, path, the query with secret parameters redacted, status, key
// prefix, replay, fault and duration, never a body or a header value. The
// mock connects to no host outside loopback unless WithExternalWebhooks(true)
// (flag -allow-external-webhooks): such a delivery fails at once, without a
// connection, saying why.
//
// # Fuzzing
//
// FuzzRequestBodies and FuzzQueries send arbitrary bodies and queries to
// every route of the table; nothing may panic or answer 5xx (but the
// documented call_failed, sms_send_failed, provisioning_failed and
// vendor_error), and every error is in the error format. Their corpora are
// generated: for every body schema, bodies made from the schema (naming the
// fuzz tenant's real records, so handlers run past their lookups), then
// mutated one field at a time (missing, null, wrongly typed, huge numbers,
// nesting 2,000 deep, 10 KB strings, invalid UTF-8, unknown properties); for
// every read route, every query parameter of the API, well-formed and
// malformed. go test runs the corpora; run them longer by hand:
//
//	go test ./mockserver -run '^$' -fuzz '^FuzzRequestBodies$' -fuzztime 5m
//	go test ./mockserver -run '^$' -fuzz '^FuzzQueries$' -fuzztime 5m
//	go test ./webhooks -run '^$' -fuzz '^FuzzVerify$' -fuzztime 2m
//
// Bodies over the limit (1 MiB, WithMaxBodyBytes) get 413
// payload_too_large before anything else runs, on every route that reads a
// body, with or without credentials.
package mockserver
