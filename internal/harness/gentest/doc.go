// Package gentest checks that the OpenAPI document the mock server serves (GET /api/openapi.yaml)
// generates working clients with the code generators people use. Its tests generate a client
// from the served document into a temporary project, build it, and run one scenario with it
// against a mock server started in the test: list agents, create a call, advance the simulated
// clock, read the call, page through the leads. Every exchange of the generated client goes
// through a proxy that checks it against the document (internal/harness/conformance).
//
//   - oapi-codegen (Go types and client): testdata/oapi-codegen, a module of its own that pins
//     the generator as a tool, so this module's go.mod does not inherit its dependencies. It
//     needs the Go module proxy (or a module cache that holds them).
//   - openapi-typescript with openapi-fetch, and @hey-api/openapi-ts, compiled by tsc:
//     testdata/typescript, pinned by its package-lock.json. It needs Node.js 20.19 or later
//     and npm with the npm registry. Every answer the openapi-fetch scenario received is also
//     type-checked against the generated types.
//   - The Node.js client's TypeScript declarations (clients/node/voiceagent-mock.d.mts): a
//     program using them (testdata/nodeclient) compiled by the same pinned tsc.
//   - Spectral and Redocly lint the served document: testdata/lint, same needs as the
//     TypeScript test. The warnings the document keeps are listed, with their reason, in the
//     README's section on the OpenAPI document.
//
// Where a tool is missing (node or npm, or a module the proxy cannot serve), a test skips and
// says how to install it; under CI=true it fails instead, since .ci/run installs them all.
// Under go test -short every test here skips: the fast mode leaves the generators to the full
// suite.
//
// The package has no code of its own outside its tests.
package gentest
