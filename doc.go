// Package voiceagent is the core of the Go SDK for the voice agent platform:
// the HTTP engine every resource service shares, request options, the typed
// [Error], cursor pages and iterators, pointer helpers, scope constants and
// shared enums.
//
// Most programs start from package client, which aggregates one service per
// resource:
//
//	c := client.New(os.Getenv("VOICEAGENT_API_KEY"))
//	agent, err := c.Agents.Get(ctx, agentID)
//
// # Options
//
// Every [Option] works both when constructing a client and on a single call,
// so a call can override the client's settings:
//
//	c.Calls.Create(ctx, p, voiceagent.WithIdempotencyKey(k), voiceagent.WithMaxRetries(0))
//
// # Retries and idempotency
//
// Requests are retried on connection errors (an answer cut short counts as
// one), 429 and 5xx responses except 501, never on other 4xx. The wait
// before retry n (from 0) is RetryWaitMin*2^n capped at RetryWaitMax, with
// equal jitter (a random wait between half of it and all of it), unless the
// answer carries Retry-After, which is honoured; a Retry-After longer than
// RetryWaitMax is not waited for: the error is returned at once with its
// [Error.RetryAfter] set. A POST is only
// retried when it carries an Idempotency-Key; the SDK generates one per
// logical request (the same key on every attempt) unless the caller supplies
// one with [WithIdempotencyKey]. Each attempt carries X-Voiceagent-Retry-Count.
// Cancelling the context stops waiting and retrying at once. Each logical
// request has an overall timeout (60 seconds by default, [WithTimeout]); the
// Timeout of an http.Client given with [WithHTTPClient] bounds each attempt
// (connection, request and the whole answer), and an attempt that runs out
// of it is retried like a dropped connection.
//
// # Rate limits
//
// The client keeps the platform's per-key limits itself (x/time/rate token
// buckets per endpoint group and key, at the limits of the API's section 8),
// so a bulk job waits for a slot instead of collecting 429s; a context
// deadline sooner than the next slot fails the call at once. Signup (5 an
// hour per IP) is left to the server's 429. [WithRateLimiting] turns this
// off.
//
// # Errors
//
// Every non-2xx answer becomes an [*Error] carrying the status, the API error
// code, the message, the request id and any details. Compare codes with
// errors.Is against the sentinels ([ErrNotFound], [ErrRateLimited], ...) or
// read them with errors.As.
//
// # Pagination
//
// List methods return one [Page]; All methods return an iter.Seq2 that walks
// every page (see [All] and [Iterate]).
package voiceagent

// Version is the SDK's version, sent in the User-Agent header.
const Version = "0.1.0"
