// Package mockserver is an in-memory, stateful mock of the whole voice agent
// platform API, for tests and offline development. It serves every endpoint
// of the API; it enforces what the real service enforces (authentication,
// scopes, business isolation, JSON Schema validation, rate limits,
// idempotency) and simulates what the real service does over time (calls,
// texts, lead collection, webhook deliveries and their retries, scheduled
// runs) on a clock that tests control.
//
// It runs in-process, where [New] is a [net/http.Handler] and [Start] serves
// it on loopback for one test, or standalone as the binary
// cmd/voiceagent-mock, for test suites in any language and for curl.
//
// The Go helpers of [Server] and [Account] (NewAccount, Advance, AddFault,
// Script, Requests, Deliveries, Snapshot, Copy, ...) are one client of the
// admin API (/_mock), whose bodies are the types of package
// mockserver/admin: on a server made with [New] they go through its
// in-process transport, and [Connect] gives the same [Server] for one
// running elsewhere (the binary, a container), so a test runs against
// either.
//
// # Quick start
//
//	srv := mockserver.Start(t)                             // closed when the test ends
//	acct, _ := srv.NewAccount(mockserver.AccountOptions{})  // business, agent, number, key, session
//	c := client.New(acct.APIKey, voiceagent.WithBaseURL(srv.URL))
//
// Every account is its own tenant, so parallel tests share one server
// without resets. Standalone:
//
//	go run ./cmd/voiceagent-mock              # 127.0.0.1:8080; prints the base URL and a demo key
//
// # User guide
//
// The mock server's user guide is docs/mockserver.md in the repository,
// https://github.com/voiceagent/voiceagent-go/blob/main/docs/mockserver.md:
// what the mock does and every decision the API's specification leaves
// open, with the state tables, rules, magic values, events per action,
// limits and admin routes. Its sections:
//
//   - Quick start.
//   - Distribution: Container image, Release binaries, Recipes for test
//     suites.
//   - The server: Pipeline, Authentication and scopes, Validation,
//     Pagination, Rate limits, Idempotency, Clock, Snapshots, copies and
//     state files, IDs and determinism, Faults, Magic values, Admin API,
//     Request journal, Web dashboard, CORS, Limits and retention.
//   - Accounts and identity: Accounts, Signup, Dashboard sessions, API keys.
//   - Telephony: Agents and the voice provider, Calls, Call states,
//     Enrichment, Per-call webhooks, Leads, SMS, Telephony admin API, Scripts.
//   - Webhooks and events: Webhook subscriptions, Payload templates and
//     presets, Custom headers, Secret rotation, Deliveries, Receivers the
//     mock calls, Event log, Events emitted, Receiver checks, Delivery log
//     (admin).
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
//   - OpenAPI document.
//   - Reliability: Performance and load, Fault injection for reliability
//     tests, Concurrency, Security properties, Fuzzing.
package mockserver
