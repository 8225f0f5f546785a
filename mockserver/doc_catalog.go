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
// Agents answer from the knowledge base: when a simulated call's context
// (its string values and opening line) shares words with an entry (title,
// tags and category count double, three-letter words and up, common words
// ignored), the call's summary adds: The agent answered from the knowledge
// base entry "<title>": <first sentence of the content>.
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
// an sms touch needs a message of 1 to 1600 characters; timing_window
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
// earlier, or now when in the past. On a call touch, message is the call's
// opening line and context is given to the agent; lead_id links the call
// to a lead. A call touch places a call from the run's number; an sms touch
// sends its message through the SMS compliance path (do-not-call, consent,
// content and consent-law checks, the magic numbers of the SMS send).
//
// States of a touch:
//
//	| state     | moved by                         | next state                                        |
//	|-----------|----------------------------------|---------------------------------------------------|
//	| scheduled | the clock reaches execute_at     | running (call placed, text accepted)              |
//	| scheduled | the clock; compliance refuses    | skipped, error number_on_dnc, number_opted_out, content_blocked or tcpa_violation |
//	| scheduled | the call cannot be placed        | failed, error call_failed                         |
//	| scheduled | the text cannot be sent          | failed, error sms_send_failed                     |
//	| scheduled | DELETE of the run                | canceled (the run is gone)                        |
//	| running   | the call completes / text delivered | completed (call_id, duration, summary / message_sid) |
//	| running   | the call fails                   | failed, error no_answer or busy                   |
//
// States of a run: scheduled (no touch started) -> running (the first touch
// started) -> completed (every touch final, at least one completed) or
// failed (every touch final, none completed). A deleted run is removed;
// touches already running finish.
//
// Events (the event bus: webhook subscriptions and the event log):
// communication_run.created, communication_run.touch.started,
// communication_run.touch.completed, communication_run.touch.failed,
// communication_run.touch.skipped, communication_run.completed,
// communication_run.failed, communication_run.canceled.
// communication_run.touch.started is emitted when the clock reaches a touch,
// before its call or text is attempted, so a skipped or failed touch has
// one too; the touch's final event follows. Touch events carry
// the touch with communication_run_id, external_ref and touch_id; the
// call.* and sms.* events of a touch's call or text carry the same three
// fields, so partners match every event back to their records.
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
// (exact names, or *.example.com for subdomains), or http/https on a
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
// otherwise the callback is not_sent. Server.WaitApprovalCallback waits for
// attempts. Events: approval_request.created, approval_request.decided;
// the call's events carry approval_request_id.
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
// Runs and approval requests place calls and send texts through one seam
// (touchTelephony in runs_telephony.go). Until the call and SMS simulators
// are wired into it, a stand-in honours the magic numbers: +15005550001 no
// answer (failed after 30 s), +15005550002 busy (after 5 s), +15005550003
// call_failed at once; SMS +15005550010 number_on_dnc, +15005550011
// number_opted_out, +15005550012 sms_send_failed, +15005550013
// tcpa_violation; any other call completes after 30 to 300 s (derived from
// the number) with a summary, and any other text is delivered after 5 s. It
// emits call.started, call.completed or call.failed, sms.sent and
// sms.delivered, but keeps no call or message records.
// Server.RecordedEvents lists the recorded events of a business.
package mockserver
