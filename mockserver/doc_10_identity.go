// # Accounts
//
// NewAccount and POST /_mock/accounts {business_name, email, scopes,
// operator, partner} provision what signup provisions, without the
// emailed code: a user, a business (trial of 14 days), an intake agent
// with lead collection, a number from the pool (+15552000000 upwards), a
// key (every scope by default, the platform-only approvals:write and
// concierge:write included; scopes narrows it) and a dashboard session.
// They answer {api_key, business_id, agent_id, phone_number, user_id,
// session}, plus partner_id and referral_code with partner (the user then
// acts for a new agency partner, which the business is linked to); operator makes the user a platform
// operator. They emit workspace.created, phone_number.assigned and
// workspace.ready. An email already registered adds a business to that
// user.
//
// # Signup
//
// POST /api/v1/signup needs no key. The body's shape picks the step:
// activation_mode "payment" is payment mode (schema signupPayment); a body
// with challenge_id or otp_code is a verify step (signupOtpVerify); any
// other body is a request step (signupOtpRequest). Every body failure is 400
// validation_error, with error.details naming the field where there is one.
// After the schema, the checks all shapes share run in this order:
// referral_code, email_exists, phone numbers.
//
// Request step: answers 200 {status: otp_sent, challenge_id,
// expires_in_seconds: 600, expires_at} and emails a six-digit code to the
// lower-cased address (GET /_mock/outbox, Server.WaitOutbox: otp_code). No
// account exists yet. Several challenges for one address may be open at
// once, each with its own code.
//
// Verify step, checked in this order (every failure is 400
// validation_error with error.reason; the SDK's *signup.ChallengeError):
//   - challenge_not_found: unknown challenge_id, or one forgotten (24 hours
//     after its code expired).
//   - fields_changed: a field differs from the request step's
//     (error.details names each): email is compared case-insensitively, an
//     absent string equals an empty one, api_key_scopes as a set (order
//     free) but sent-or-not counts, so removed or added scopes are a change.
//     The challenge becomes invalid: later verifies get challenge_invalid,
//     even with the original fields ("verification invalid" of spec section
//     3; a new code must be requested).
//   - challenge_invalid, challenge_locked: see above and below.
//   - replay_token_invalid: replay_token sent on a challenge not verified
//     yet.
//   - otp_expired: ten minutes after the request step (simulated clock).
//   - otp_mismatch, with error.attempts_remaining: a wrong code. The fifth
//     wrong code locks the challenge (challenge_locked, also for the right
//     code afterwards).
//
// Then the shared checks again (the address may have been registered since:
// 409 email_exists), and the account is provisioned: 201 with api_key (once),
// api_key_id, api_key_prefix, scopes, user_id, business_id, agent_id,
// phone_number, dashboard_url (https://app.voiceagent.example/b/<id>),
// trial_ends_at (14 days), dashboard_magic_link, password_setup_link,
// replay_token, call_routing, activation_mode, status "provisioned" and
// replayed false; plan_id and referred_by_partner_id where they apply. The
// key is named "Signup Key" and has the api_key_scopes sent, or the
// read-only set of spec section 4. A welcome email carrying the magic link
// goes to the outbox.
//
// Retries: a verify retried with the same Idempotency-Key within 24 hours
// gets the first answer, key included (the SDK does this on lost answers).
// A verify on a verified challenge with its replay_token gets a redacted
// replay: 200 with the same ids, replayed true, and no api_key, links or
// replay_token; without a replay_token it is 409 email_exists (the account
// exists); with a wrong one 400 replay_token_invalid. A verified challenge
// answers replays until 24 hours after its code's expiry.
//
// email_exists is 409 with error.recovery_paths {sign_in, key_setup}
// (dashboard links).
//
// Scopes: api_key_scopes must hold at least one scope, without duplicates,
// the wildcard, unknown or platform-only scopes (approvals:write,
// concierge:write); the schema enforces this (400 validation_error at
// /api_key_scopes/<i>).
//
// Payment mode: api_key_scopes is rejected; plan_id is starter (default,
// 4900 cents a month), growth (14900), pro (39900) or price_<plan>_monthly,
// else 400 at /plan_id. The fields are checked first; then without an
// X-PAYMENT header (any non-blank value is accepted) the answer is 402
// payment_required with error.payment_requirements {scheme x402, header,
// plan_id, amount_cents, currency, interval}. With it the account is
// provisioned at once (201, same answer as a verify step, no code, no
// replay_token): the read-only scope set, the same 14-day trial (the
// payment starts the subscription when it ends), the plan recorded.
//
// Magic domain: an email at @provisioning-fails.example makes provisioning
// fail at the phone number step (verify or payment): the user, business,
// intake agent, key and session exist, no number is assigned. The answer is
// 503 with error {code provisioning_failed, message, recovery_paths} and,
// beside the error, the whole success answer (key and links included) with
// status provisioning_failed, phone_number null and setup_status {state
// partial, completed_steps, failed_steps [phone_number], recovery_paths
// {sign_in, key_setup, resume_setup}}. It carries X-Voiceagent-Should-Retry:
// false, which the SDK honours. Events: workspace.created, then
// workspace.provisioning_failed (data: the business and failed_step)
// instead of phone_number.assigned and workspace.ready. Signing up again is
// 409 email_exists: resume, do not restart. A replay with the replay_token
// repeats the 503, redacted.
//
// Rate limit: 5 POST /v1/signup per hour per client IP, counting every
// attempt (failed ones and verify steps too: an email signup costs two).
//
// Referral: referral_code is either a partner's registered referral code or
// the partner's id (store.RegisterPartner; AccountOptions.Partner makes a
// partner with a code "ref_..."). An unknown code is 400 at
// /referral_code (not ignored: the caller expects the attribution). A
// partner cannot refer itself: a code used with the address of a user who
// acts for that partner is 400 at /referral_code, checked before
// email_exists. A referral attributes the signup (referred_by_partner_id
// in the answer, kept in the signup record); it does not link the business
// to the partner, so the partner's keys do not reach it.
//
// Phones: phone_forward_to and phone may be written as people write them:
// spaces, dashes, dots and parentheses are dropped; a 10-digit number (or 11
// starting with 1) without a plus is North American. Anything else that is
// not E.164 is 400 at that field. phone_forward_to sets ring-first routing:
// the owner's number rings for 20 seconds, then the agent answers
// (call_routing {mode ring_first, forward_to, ring_seconds 20, then agent}).
// Without it, phone is kept as the owner's phone and the agent answers
// directly (call_routing {mode agent, owner_phone}).
//
// # Dashboard sessions
//
// dashboard_magic_link is GET /api/auth/magic?token=... on the server the
// signup reached (built from the request's Host). It is one-time and valid
// for 15 minutes; it answers 200 {session, user_id, expires_at} and sets the
// cookie voiceagent_session (Path=/, HttpOnly, SameSite=Lax, Secure over
// TLS, expiring with the session after 30 days). A used or unknown link is
// 401 unauthorized, an expired one 401 too (saying so), a missing token 400
// bad_request. password_setup_link is GET /api/auth/password-setup?token=...,
// valid for 7 days and not used up: it answers {user_id, email, expires_at}
// (setting a password is not modelled); it is not a sign-in link.
//
// # API keys
//
// GET, POST and DELETE /api/v1/keys take a dashboard session only; a bearer
// key gets 401 unauthorized saying a session is needed, so a key cannot
// create, upgrade or revoke keys. Sessions skip scope checks.
//
// GET lists the keys that act as the session's user, revoked ones included,
// newest first, paged (limit default and maximum 100, after, has_more):
// id, prefix, name, scopes, business_id (null: all the user's businesses),
// partner_id, user_id, created_at, last_used_at (updated by every
// authenticated request with the key), expires_at (always null: nothing
// sets an expiry), is_active, revoked_at. A key's value is never listed.
//
// POST (schema keyCreate; failures 400 invalid_request) answers 201 with
// the record and, once, key. name defaults to "Untitled Key"; scopes to
// agents, numbers, calls, sms and emails read and write; sdr:*,
// approvals:write, concierge:write, call_evidence:*, support:write, the
// wildcard and unknown scopes are rejected. business_id: 404 if no such
// business, 403 unless the user is its owner or admin. partner_id: only
// platform operators (403 otherwise; AccountOptions.Operator or
// POST /_mock/accounts {"operator": true} makes one); the partner must be
// registered or have created a business (404 otherwise); combined with
// business_id it is 400. The partner key reaches exactly the businesses the
// partner created. user_id needs partner_id (400), must exist (404), and is
// the user the key acts as (default the operator); such a key is listed for
// that user and may be revoked by that user or the minting operator.
//
// DELETE ?id= (missing: 400 bad_request) revokes a key of the caller (404
// for any other key): the next request with it is 401 ("revoked"). It
// answers {success: true, id, revoked_at}; revoking again succeeds and
// keeps the first revoked_at.
package mockserver
