// # Products and knowledge
//
// POST /v1/products and POST /v1/knowledge are upserts: a body without id
// creates (201, the record), a body with id updates (200, the record) the
// fields it sends; every other field stays. Product create needs
// business_id and name; knowledge create needs title, content and
// content_type, and knowledge always needs business_id. On an update,
// business_id must be the record's own business (400 invalid_request,
// detail /business_id): it never moves a record. Names, titles and SKUs are
// not upsert keys: the same name twice makes two records. Product
// attributes are replaced as a whole; knowledge category and tags take an
// explicit null to clear them. An id of a record that does not exist, or of
// another tenant, is 404. Scopes: products:read / products:write and
// knowledge:read / knowledge:write.
//
//	GET    /v1/products              {products: [...], has_more}; business_id, category, sku, limit (50, max 100), after
//	GET    /v1/products?id=          one product
//	DELETE /v1/products?id=          {success: true, id}
//	GET    /v1/knowledge             {knowledge: [...], has_more}; business_id, category, content_type, tag, limit, after
//	GET    /v1/knowledge?id=         one entry
//	DELETE /v1/knowledge?id=         {success: true, id}
//
// Agents answer from the knowledge base: when what a call is about (an
// outbound call's context, what an inbound caller said and their intent)
// shares words with an entry (title, tags and category count double; words
// of three letters and more; common words ignored; ties go to the newest),
// the call's summary ends with: The agent answered from the knowledge base
// entry "<title>": <first sentence of the content>.
//
// # Communication runs
//
//	POST   /v1/communication-runs/validate   200 {valid, errors: [{path, message}], warnings, touches}
//	POST   /v1/communication-runs/preview    200 the plan, or 400 invalid_request with every problem in details
//	POST   /v1/communication-runs            201 the run; Idempotency-Key required
//	GET    /v1/communication-runs            {communication_runs: [...], has_more}; business_id, status, external_ref, limit, after
//	GET    /v1/communication-runs?id=        the run with every touch's state
//	DELETE /v1/communication-runs?id=        {success, id, canceled_touches}
//
// validate, preview, list and read need communication-runs:read; create and
// delete communication-runs:write. validate reports schema failures and
// rule failures alike as errors in a 200 answer; only a body that is not
// JSON (400) and a business the key does not reach (403, or 404 when it
// does not exist) are error answers. preview and create answer 400
// invalid_request with the same list in error.details. create without an
// Idempotency-Key header is 400 invalid_request (detail path
// Idempotency-Key); with one, a replay returns the same run
// (Idempotent-Replayed: true) and another body with the key is 409
// idempotency_conflict.
//
// Rules beyond the schema: touch_id unique in the run; target.phone E.164;
// target.timezone, when sent, an IANA time zone; target.lead_id, when sent,
// a lead of the business; an sms touch needs a message of 1 to 1600
// characters; timing_window
// not_before not after not_after, not_after not in the past, scheduled_at
// not after not_after; agent_id an agent of the business; assigned_number_id
// an E.164 number or a number id of the business. Without agent_id the
// agent is the number's agent, else the business's intake agent; without
// assigned_number_id the number is the agent's (a run whose agent has no
// number needs one). Warnings: scheduled_at in the past (the touch runs at
// once), scheduled_at before not_before (it runs at not_before),
// sms_category on a call touch (ignored).
//
// A touch runs at its execute_at: scheduled_at, moved to not_before when
// earlier, or now when in the past. A call touch places an outbound call
// exactly as POST /v1/calls does (same simulation, magic numbers,
// enrichment and records), from the run's number: message is its opening
// line (default the agent's outbound greeting), context (as JSON) its
// context, target.name its name, target.lead_id its lead (a lead of the
// business, checked at validation). An sms touch sends message exactly as
// POST /v1/sms/send does, from the run's number, through the SMS compliance
// path: the magic numbers, do-not-call, consent (the recipient must have
// opted in), quiet hours (08:00-21:00 in the recipient's time zone:
// target.timezone when sent, else derived from the number) and content.
// target.email and target.state, sms_category and metadata are kept and
// shown on the run; they change nothing in the simulation.
//
// States of a touch:
//
//	| state     | moved by                            | next state                                        |
//	|-----------|-------------------------------------|---------------------------------------------------|
//	| scheduled | the clock reaches execute_at        | running (call placed: call_id; text sent: message_sid) |
//	| scheduled | the clock; SMS compliance refuses   | skipped, error number_on_dnc, number_opted_out, content_blocked or tcpa_violation |
//	| scheduled | the clock; the call cannot be placed | failed, error call_failed                        |
//	| scheduled | the clock; the carrier fails the text | failed, error sms_send_failed                   |
//	| scheduled | DELETE of the run                   | canceled (the run is gone)                        |
//	| running   | the call completes                  | completed (duration, summary)                     |
//	| running   | the text is delivered (2 s)         | completed                                         |
//	| running   | the call fails                      | failed, error no_answer (after 30 s) or busy      |
//
// States of a run: scheduled (no touch started) -> running (the first touch
// started) -> completed (every touch final, at least one completed) or
// failed (every touch final, none completed). A deleted run is removed;
// touches already running finish.
//
// Events: a touch's call and text are ordinary calls and texts, so their
// events are the spec's (call.started, call.completed, call.failed,
// sms.sent, sms.delivered, sms.failed; subscriptions and the event log), and
// their data, like GET /v1/calls?id= and GET /v1/sms/messages, carries
// communication_run_id, external_ref and touch_id: partners match every
// event back to their records by external_ref and touch_id. A touch that
// compliance skipped, or whose call could not be placed, produced no call
// or text and so no event: its state and error are on the run. Runs add no
// event types of their own (the spec's list of event types is closed).
//
// # Governed updates
//
//	POST /v1/governed-updates          the request (body governedUpdateRequest)
//	GET  /v1/governed-updates          {governed_updates: [...], has_more}; business_id, status, intent, limit, after
//	GET  /v1/governed-updates?id=      one update
//	POST /v1/governed-updates/decide   {id, decision: approve|reject, note}: dashboard session only
//
// Intents and their target and payload (the shapes are ours; the schema
// states them): agent.patch, target {agent_id}, payload the fields of PATCH
// /v1/agents (checked against agentUpdate; failures are reported under
// /payload) and applied exactly as PATCH /v1/agents applies them;
// phone.emergency_address.set, target {number_id or phone_number}, payload
// {name, street, street2, city, state, postal_code, country}, stored as the
// number's emergency address; transcripts.sink.configure, payload {url,
// enabled (default true), format json|text (default json)}, stored as the
// business's transcript sink. The business is business_id, else the
// target's, else the key's only business; a business_id that is not the
// target's is 400.
//
// Scopes: agent.patch needs agents:write, the other intents
// workspaces:write (the route accepts either, the intent decides); reads
// agents:read or workspaces:read. A dashboard session may submit too.
//
// Authority (authority.mode; absent means none):
//
//	| intent                      | modes that apply directly                                    |
//	|-----------------------------|--------------------------------------------------------------|
//	| agent.patch                 | agent_asserted, human_confirmed, dashboard_session, system_policy |
//	| transcripts.sink.configure  | human_confirmed, dashboard_session, system_policy            |
//	| phone.emergency_address.set | human_confirmed, dashboard_session                           |
//
// human_confirmed needs confirmed_by and a confirmed_at not in the future
// (400 otherwise); dashboard_session counts only on a request made with a
// dashboard session.
//
//	| request                                   | outcome                                   | answer |
//	|-------------------------------------------|-------------------------------------------|--------|
//	| dry_run true                              | nothing stored or changed; would, changes (current and new), authority_sufficient | 200 status dry_run |
//	| queue_for_approval true                   | pending_approval; nothing changed          | 202 |
//	| authority applies directly                | applied; result                            | 200 |
//	| otherwise                                 | rejected                                   | 403 forbidden with governed_update_id, allowed_authority_modes |
//	| pending_approval, decide approve          | applied (failed when the target is gone)   | 200 |
//	| pending_approval, decide reject           | rejected                                   | 200 |
//
// Mutating requests need idempotency_key (schema). Per business, the first
// outcome (applied, pending_approval or rejected, with its status and body)
// is kept: a replay with the same body returns it with Idempotent-Replayed:
// true, even after a later decision or change; the same key with another
// body is 409 idempotency_conflict. Errors that are not outcomes (400, 404,
// scope 403, a failing voice provider) keep nothing, so a retry runs again.
// Top-level properties beyond the schema are kept in extra.
//
// # Approval requests
//
//	POST /v1/approval-requests        201 the request (body approvalChannelRequest), approvals:write
//	GET  /v1/approval-requests        {approval_requests: [...], has_more}; status, limit, after (the caller's own)
//	GET  /v1/approval-requests?id=    one request
//
// approvals:write is platform-only (signup and key creation refuse it);
// test accounts get it through AccountOptions.Scopes or by default. Channel
// types sms and sms_then_voice answer 501 not_implemented: only the
// voice-prefixed types place a call. expires_at must be in the future.
// callback_url must be https on the host list of WithApprovalCallbackHosts
// (flag -approval-callback-hosts; exact names, or *.example.com for
// subdomains), or http/https on a
// loopback host (test receivers); otherwise 400 invalid_request, detail
// /callback_url. A call that cannot be placed answers that error (500
// call_failed) and stores nothing.
//
// The call is placed from the number of the caller's first business that
// has one (its intake agent), to channel.address, with an opening line
// reading the source and summary (and the required factors). Outcomes:
//
//	| state   | moved by                                   | next state                       |
//	|---------|--------------------------------------------|----------------------------------|
//	| calling | the call completes                         | approved (verified_factors = required_factors) |
//	| calling | the call completes, address +15005550020   | denied                           |
//	| calling | the call fails (+15005550001, +15005550002) | unreachable (no SMS leg is sent) |
//	| calling | the clock reaches expires_at               | expired (the call's end is then ignored) |
//
// Every outcome is posted to callback_url: {id, event: approval.decided,
// business_id, timestamp, data: {approval_request_id, decision, reason,
// source, source_request_id, source_intent_id, message_id, responds_to_hash,
// principal_id, channel, risk_level, required_factors, verified_factors,
// call_id, decided_at, expires_at}}, signed the Standard Webhooks way
// (webhook-id, webhook-timestamp in real seconds, webhook-signature v1,
// HMAC-SHA256), with X-Voiceagent-Event and X-Voiceagent-Attempt. The
// secret is whsec_ and base64 of 24 random bytes: without
// callback_secret_id each request gets its own, returned once as
// callback_secret in the create answer; a callback_secret_id names a secret
// of the caller, made and returned on its first use, reused (not returned)
// afterwards. A non-2xx answer or a timeout (10 s) is retried on the clock
// at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h; then the callback is
// failed. The request's callback object shows status (none, pending,
// delivered, failed, not_sent), attempts and next_attempt_at. A host
// outside loopback is only called with WithExternalWebhooks(true);
// otherwise the callback is not_sent (callback.error says why). Like webhook
// deliveries, the first attempt starts at once and the retry 5 seconds
// later waits for its outcome on the clock, so once Advance has passed a
// decision by 5 seconds, its first attempt is recorded; later attempts run
// on the clock and Advance waits for their answers. The call is an ordinary
// call (GET /v1/calls?id=, call.* events) carrying approval_request_id.
//
// # Persona loading
//
// POST /v1/agents/persona (agents:write, body agentPersonaLoad) makes an
// agent play a simulated lead. The agent's inbound and outbound prompts
// become a prompt built from the persona (lead name, scenario, objective,
// traits, script, facts to reveal and to withhold, callback number); its
// first_message and outbound first message become first_message when sent,
// else the persona's opener, else "Hi, this is <lead_name>."; voice and
// model (model merged key by key) change when sent; the persona is kept in
// the agent's metadata under "persona" with loaded_at. The assistant at the
// voice provider is updated (a voice_provider fault gives vendor_error and
// changes nothing). The answer: {agent_id, vendor_assistant_id, loaded,
// persona, first_message, first_message_source (first_message, opener or
// default), prompt, voice, model, loaded_at}. It is meant for test agents:
// to restore an agent, PATCH its prompts and greetings.
//
// # Calls and texts of runs and approvals
//
// Runs and approval requests place calls and send texts through the same
// code as POST /v1/calls and POST /v1/sms/send (runs_telephony.go), so
// every simulation rule, magic number and record applies; the call or
// message keeps the touch's or approval's reference, shows it in its views
// and events, and hands its end back to the run or approval request.
package mockserver
