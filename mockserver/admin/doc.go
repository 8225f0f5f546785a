// Package admin holds the bodies of the mock server's admin API (/_mock)
// as openapi/admin.yaml describes them, defined once: the requests the
// routes take, the responses they give, and a typed constant for every
// value of each enum of the admin API (script outcomes, fault targets,
// delivery kinds and statuses, step statuses, consent states, ...).
//
// The mock server's domains read and write these types, package
// mockserver's Go helpers take and return them (its names for them are
// aliases), and any Go client of the admin API (a test of a container, a
// tool) can decode the admin API's answers into them. The package is a
// leaf: it imports nothing of the mock server, only the SDK's root package
// (for voiceagent.Scope).
package admin
