// # OpenAPI document
//
// GET /api/openapi.yaml (no key) serves the OpenAPI 3.1 description of the
// API, and GET /api/v1/openapi.json (any valid key, no scope) the same
// document as JSON. It is openapi/openapi.yaml bundled at serve time: the
// request body schemas it references (schemas/<name>.json, the same files
// the mock validates bodies with and GET /v1/schemas serves) are copied under
// components/schemas, so the served document is self-contained and any
// code generator, API explorer or other mock server can read it from the
// URL. Its first server is the mock itself (the scheme and host the request
// arrived on, plus /api), so "try it" in an explorer calls the mock.
//
// The document describes what this mock answers, precisely: where the spec
// leaves a shape open (capabilities, the schema catalog, communication runs
// and their validate and preview answers, governed updates, approval
// requests, events, the agency records and receipts, signup's redacted
// replay), its schemas list every member the mock sends. The operations the
// mock serves beyond the spec are documented as ours: GET /auth/magic and
// GET /auth/password-setup (the signup links), GET /v1/sms/messages,
// POST /v1/webhooks/rotate-secret, GET /v1/governed-updates,
// POST /v1/governed-updates/decide and GET /v1/approval-requests. Answers
// document the headers the mock sends: X-Request-Id always, RateLimit-* on
// rate-limited operations (after authentication, so not on a 401 of a keyed
// route), Idempotent-Replayed on POST. The mock reads a request body as JSON
// whatever its Content-Type; the document declares application/json, which
// every client should send.
//
// The outbound-sales pipeline (/sdr) and analytics are documented from the
// spec and not served yet.
//
// The admin API (/_mock) is not part of the platform's API and not in that
// document: openapi/admin.yaml describes it, in the repository only, with
// its bodies referencing the schemas of mockserver/adminschemas.
//
// Tests keep the three in step (package internal/conformance): every
// request and answer of the end-to-end tests is validated against the
// document in strict mode (a body member, query parameter or header the
// document does not declare is a failure), and the coverage tests fail when
// the mock serves a route, under /api or /_mock, that the matching document
// lacks or documents with other authentication, scopes or body schema, when
// a documented operation is not served or not called by the SDK, and when
// the SDK sends a request the document lacks; [Server.Routes] lists the
// table they compare.
package mockserver
