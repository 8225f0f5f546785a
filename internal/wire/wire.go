// Package wire holds the tables the SDK and the mock server share, defined
// once: the API's error codes (spec section 7 and the platform's
// refinements), its scope names (spec section 5) and its rate limits per
// route (spec section 8).
//
// The root package voiceagent re-exports the codes and scopes as its public
// API and takes its client-side rate limits from Limits; the mock server
// answers with the same codes, checks the same scopes and enforces the same
// limits. A change to the API's tables is made here, and both sides follow.
package wire
