// Package wire holds what the SDK and the mock server share on the wire
// that is not part of the SDK's public API, defined once: the rate limits
// per route (spec section 8) and the form of a time (TimeLayout).
//
// The SDK's client-side limiter (package voiceagent) holds requests to
// Limits; the mock server enforces the same limits. The mock server's
// encoder writes every time with AppendTime, and so does the SDK where
// it writes a body the platform sends (webhooks.CallWebhook). The API's
// error codes and scopes are public, so their one definition is the root
// package voiceagent, which the mock server imports.
package wire
