// # Account reads
//
// GET /v1/balance (billing:read) answers {businesses: [{business_id,
// minutes_used, phone_numbers, subscription_status}]}, one entry per
// business the key reaches, oldest first; ?business_id= narrows it to one
// (404 unknown, 403 not reached). minutes_used is the business's billed call
// minutes (see Call states), 0 until a conversation finishes. phone_numbers counts the business's numbers; subscription_status
// is the business's (active for a new one).
//
// GET /v1/usage (billing:read) reads the usage log, which is per user: one
// entry per authenticated API request, whatever its status (403 and 429
// included; a 401 has no user and is not logged; the admin API never is),
// written before the answer, so a client finds a request it made in the
// log at once. A request costs 10 cents when it places a call (POST
// /v1/calls, which also sets call_id) and 1 cent when it sends an SMS (POST
// /v1/sms/send); everything else costs 0; a failed request costs 0. Query:
// start (inclusive) and end (exclusive), ISO 8601 as RFC 3339 with or
// without fractional seconds or as a date (midnight UTC), end after start;
// limit (default 100, 1 to 500); after (the cursor). Answer {usage: [{id,
// endpoint, method, status_code, call_id, cost_cents, created_at}],
// has_more}; endpoint is the path below /api (/v1/agents). A key limited to
// one business sees the requests made with keys limited to that business;
// any other key of the user sees the whole log. The log is not bounded: a
// long load test against the standalone server grows it by one small record
// per request.
//
// GET /v1/capabilities (any valid bearer key) answers
//
//	{
//	  "workspace":   {id, name, business_type, website, subscription_status, trial_ends_at, created_at, partner_id?} or null,
//	  "workspaces":  [the same, for every business the key reaches, oldest first],
//	  "key":         {id, prefix, name, scopes, business_id, partner_id, created_at, expires_at},
//	  "permissions": [granted scopes in the order of the scope list, the wildcard expanded],
//	  "allowance":   {rate_limits: [{group, method, path, limit, window_seconds, per: key|ip}],
//	                  rate_limits_enforced, subscription_status, trial_ends_at}
//	}
//
// workspace is the one business the key reaches, null when it reaches
// several (each entry of workspaces has its own status and trial); the
// allowance's subscription_status and trial_ends_at are workspace's, null
// likewise. rate_limits are the limits this server enforces (after
// WithRateLimitScale); a path ending in * is a prefix, a lone * every other
// endpoint of the method.
//
// GET /v1/schemas (any valid bearer key) answers the catalog {schemas:
// [{name, title, description, id, url}]}: every schema of package openapi,
// common (the shared definitions) included; id is the schema's $id, under
// which a validator must register it, since schemas refer to common.json by
// relative $ref; url reads the schema from this server. GET
// /v1/schemas?name=<name> answers the schema document itself; an unknown
// name is 404 not_found.
package mockserver
