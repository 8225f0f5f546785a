// Package wire holds what the SDK and the mock server share on the wire
// that is not part of the SDK's public API: the rate limits per route
// (spec section 8), defined once.
//
// The SDK's client-side limiter (package voiceagent) holds requests to
// Limits; the mock server enforces the same limits. The API's error codes
// and scopes are public, so their one definition is the root package
// voiceagent, which the mock server imports.
package wire
