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
// The admin API (/_mock) is not part of the platform's API and not in that
// document: openapi/admin.yaml describes it, in the repository only, with
// its bodies referencing the schemas of mockserver/adminschemas. Tests
// (internal/conformance) fail when the mock serves a route, under /api or
// /_mock, that the matching document lacks, or documents with other
// authentication, scopes or body schema; [Server.Routes] lists the table
// they compare.
package mockserver
