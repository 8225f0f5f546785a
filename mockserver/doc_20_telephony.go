// # Agents and the voice provider
//
// GET /v1/agents (agents:read) lists the agents of the key's businesses (or
// of business_id), newest first, in one answer (no pages): {agents: [{id,
// name, business_id, vendor_assistant_id, phone_number, status,
// created_at}]}. GET /v1/agents?id= adds prompts {inbound, outbound, sms}
// (each {prompt, llm}, outbound also first_message; the inbound prompt is
// read from the voice provider), voice, voice_catalog_id, model,
// first_message, metadata, max_duration, vendor_config, transfer settings,
// lead_collection and updated_at. POST (agents:write, schema agentCreate)
// answers 201 {id, name, business_id, vendor_assistant_id, created_at};
// PATCH (agents:write, schema agentUpdate) answers {id, name, business_id,
// vendor_assistant_id, updated: true, updated_fields}. GET /v1/voices
// (agents:read) answers {voices: [{id, name, provider, voiceId, gender,
// accent, language}]}: sarah, james, maria (11labs), alloy, nova and onyx
// (openai), the ids voice_catalog_id may name (400 for another). GET
// /v1/numbers (numbers:read) lists the numbers of the key's businesses (or
// of business_id), newest first, in one answer: {numbers: [{id,
// phone_number, agent_id, business_id, created_at}]}.
//
// Agents are created with the greeting "Hello! How can I help you today?",
// voice 11labs/sarah and model openai/gpt-4o-mini at temperature 0.7 unless
// given; each agent has a twin assistant at the simulated voice provider
// (vendor_assistant_id) holding its name, inbound prompt, greeting, voice,
// model and vendor settings. PATCH changes only the fields sent, merges
// metadata, lists the sent field names in updated_fields, and sanitises
// vendor_config: keys outside a fixed list of provider settings (speaking and
// interruption plans, end-call phrases and message, transcriber, analysis,
// artifact, denoising, monitor, silence and max-duration settings, voicemail
// detection) are dropped and listed in ignored_vendor_config_keys. A
// voice_provider fault makes create and update answer vendor_error; a
// storage fault makes storing a new agent fail after its assistant was
// created, and the assistant is removed.
//
// # Calls
//
// POST /v1/calls (calls:write) places an outbound call and answers 201 with
// {id, conversation_id, status: queued, agent_id, to, name, created_at}.
// The agent must be one the key reaches (another business's agent, or an
// unknown one, is 404 not_found); lead_id must be a lead of the agent's
// business (404 otherwise). name and customer_name are aliases, as are
// firstMessage and first_message (sending both of a pair is 400). The call
// comes from the agent's number, else the business's first number.
// max_duration caps the conversation: the request's value, else the agent's
// max_duration (PATCH /v1/agents), else 600 seconds. As the spec says, API
// calls skip the platform's consent and do-not-call checks. A voice_provider
// fault on POST /v1/calls answers vendor_error with the fault's status.
//
// GET /v1/calls (calls:read) lists calls newest first across the key's
// businesses: limit (default 50, at most 100), agent_id, status (any string;
// no match is an empty list), business_id, after. Items carry id,
// conversation_id, status, duration, agent_id, agent_name, created_at and
// the quickstart's direction and summary. GET /v1/calls?id= adds
// business_id, lead_id, recording_url, transcript, quality_dimensions, to,
// from, name, context, max_duration, error, ended_reason (completed,
// max_duration, transferred, voicemail, no_answer, busy), voicemail,
// started_at, ended_at and updated_at. Values not known yet are null;
// duration is 0 until the call ends. agent_name is the agent's current name.
//
// GET /v1/transcripts (calls:read) lists calls that have a transcript
// (finished answered calls and voicemails), newest first: limit (default
// 20, at most 50), agent_id, business_id, after, days (default 30, at most
// 90: calls created since now minus days).
//
// # Call states
//
// Every step runs on the simulated clock. Outbound (POST /v1/calls):
//
//	state        moved by                    condition              next state   also
//	(none)       POST /v1/calls              to = +15005550003      (none)       500 call_failed, nothing recorded
//	(none)       POST /v1/calls              otherwise              queued       provider record with the enrichment
//	queued       clock, 2 s later            to = +15005550002      failed       error busy; call.failed; webhook
//	queued       clock, 30 s later           to = +15005550001      failed       error no_answer; call.failed; webhook
//	queued       clock, 2 s later            otherwise              in-progress  started_at; call.started
//	in-progress  clock, duration later       -                      completed    duration, transcript, summary,
//	                                                                             recording_url, quality_dimensions;
//	                                                                             the lead's interaction; call.completed; webhook
//
// The duration is derived from the number called: 30 + FNV-1a(to) mod 271
// seconds (30 to 300; the same number always gives the same duration),
// capped by max_duration (ended_reason max_duration, the transcript ends
// with the agent closing at the limit and resolution quality is 3).
//
// Inbound (POST /_mock/inbound-call, Server.InboundCall):
//
//	state        moved by                    condition              next state   also
//	(none)       inbound call                to is a platform number ringing     call.received; the caller gains SMS consent
//	ringing      clock, 2 s later            answered (default)     in-progress  call.started (20 s with ring-first routing:
//	                                                                             the owner's phone rings first)
//	ringing      clock, 30 s later           answered false         no-answer    voicemail: transcript "Caller: ...", recording,
//	                                                                             voicemail.received; lead collected; call.failed
//	in-progress  clock, duration later       -                      ended        transcript, summary, quality, recording;
//	                                                                             lead collected; conversation.handoff when
//	                                                                             transferred; call.completed
//
// An inbound conversation lasts the given duration, else 30 + FNV-1a(from)
// mod 271 seconds, capped by the agent's max_duration (default 600). A
// caller whose intent is to reach a person (see Leads) is transferred when
// the agent has transfer_enabled and a transfer_phone_number: the call ends
// with ended_reason transferred and conversation.handoff {call_id,
// conversation_id, agent_id, lead_id, from, transfer_to, reason,
// timestamp}.
//
// Transcripts are Agent: and Caller: turns separated by newlines. Quality
// dimensions (professionalism, empathy, information_gathering, resolution)
// are 1 to 10, derived from the other party's number; information gathering
// rises with each detail captured. Recordings are at
// https://recordings.voiceagent.example/<call id>.mp3. Every finished
// conversation (completed and ended calls, voicemails) counts towards the
// business's billed minutes, its duration rounded up to a whole minute
// (Server.MinutesUsed, minutes_used of GET /v1/balance); failed outbound
// calls and unanswered calls without a voicemail add nothing.
//
// # Enrichment
//
// What the agent received is the provider record of the call
// (Server.ProviderCall, GET /_mock/provider-calls?call_id=): the assistant,
// the numbers, the opening line, the prompt and the variables. When lead_id
// is given, or a lead of the business has the number called as its phone
// (the oldest such lead; the call is then linked to it), the variables are
// name, lead_score, lead_status, interaction_count, days_since_first_contact
// (whole days since the lead was created), lead_source, business_name,
// business_phone (the number the call comes from) and time_of_day (morning
// 05:00-11:59, afternoon 12:00-16:59, evening otherwise, in the business's
// time zone, America/New_York by default). Without a lead only the last
// three, plus name when the request gives one. The request's name wins over
// the lead's. {{variable}} placeholders in the prompt and the opening line
// are filled in; the opening line is firstMessage, else the agent's
// outbound first message, else "Hi <name>, this is <agent> calling from
// <business>."; the prompt is the outbound prompt (the inbound one when
// there is none) followed by "Context: <context>".
//
// # Per-call webhooks
//
// A call created with webhook_url gets one delivery when it ends: a POST of
// the spec's flat body, exactly {event: call.completed, call_id, status:
// completed, duration, recording_url, summary, timestamp} or {event:
// call.failed, call_id, status: failed, error, timestamp} (timestamp: the
// simulated time of the end), with headers webhook-id (the same on every
// attempt and on a replay: deduplicate on it), Content-Type
// application/json, X-Voiceagent-Event, X-Voiceagent-Attempt and
// User-Agent. It is not signed: no secret belongs to a webhook_url
// (receivers built on package webhooks accept it with
// webhooks.WithUnsignedCallWebhooks; authenticate it by a token in the
// URL).
//
// Per-call webhooks ride on the delivery engine of the subscriptions (see
// Deliveries in the webhooks section): the same retry schedule
// (WebhookRetrySchedule: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
// 10 h; failed after the eighth failure, and replayable), the same attempt
// timeout, receiver rules and worker pool, and the same delivery log: GET
// /_mock/deliveries?kind=call_webhook&call_id= and Server.Deliveries,
// Server.WaitDeliveries with DeliveryFilter{Kind: DeliveryKindCallWebhook,
// CallID: id}. A per-call webhook shows kind call_webhook, call_id, no
// subscription_id, message_id (its webhook-id: the id of its first
// delivery) and event_id (the call.completed or call.failed event of the
// log); a replay (POST /_mock/deliveries/replay, Server.ReplayDelivery)
// posts the same body with the same webhook-id to the call's webhook_url.
// POST /v1/events/replay re-delivers events to subscriptions only, never to
// a call's webhook_url.
//
// Receivers follow the rules of "Receivers the mock calls", with one
// difference: a webhook_url the mock would not call (http:// outside
// loopback, or a host outside loopback without WithExternalWebhooks(true))
// is refused when the call is created (400 invalid_request on webhook_url),
// where a subscription accepts any https URL and its attempts fail.
// Per-call webhooks are deliveries of kind call_webhook in the one delivery
// log (GET /_mock/deliveries?kind=call_webhook&call_id=, Server.Deliveries,
// Server.WaitDeliveries, every attempt with its simulated time, status code,
// error and real duration). The first attempt is posted in the background
// when the call ends: wait for its result before advancing the clock to the
// retry, which then runs on the clock.
//
// # Leads
//
// Every agent collects leads. At the end of an inbound call (answered,
// voicemail or missed) and on an inbound text that is not a STOP/START
// keyword, lead collection extracts the caller's name, email, phone and
// intent: the values the caller gives explicitly (caller.name, .email,
// .phone, .intent), else from what they said ("my name is", "this is", "I'm"
// followed by a capitalised name; an email address; a +E.164 number; the
// phone defaults to the caller's number). Intent, from keywords of what was
// said, first match wins: human (a person, representative, operator,
// manager, transfer me), cancellation (cancel), booking (book, appointment,
// schedule, reserve, availability), quote (quote, price, cost, estimate, how
// much), support (broken, leak, problem, issue, not working, repair, fix),
// else inquiry.
//
// A repeat contact updates the same lead: the business's lead with the
// caller's number, else with the phone they gave, else with their email
// (case-insensitive). Details captured replace older ones, others stay.
// Otherwise a lead is created (status new, source inbound_call, voicemail,
// missed_call or sms, agent_id the answering agent): lead.created then
// lead.scored. A STOP or START text touches an existing lead but creates
// none.
//
// Interactions: every inbound call, completed outbound call to the lead
// and text sent or received counts one. An outbound contact (completed call
// or text sent) moves a new lead to contacted; nothing else moves statuses
// but PATCH.
//
// Score, 0 to 100, recomputed on every change (lead.scored when it
// changes): converted 100; lost, unqualified, spam, do_not_contact 0;
// otherwise 10, +15 name, +15 email, +10 phone, +10 per interaction (at most
// 30), +20 booking intent, +15 quote, +5 inquiry, +10 when qualified, at
// most 100.
//
// GET /v1/leads (leads:read): status (the eight statuses; others are 400),
// source, agent_id, phone (exact), email (exact, case-insensitive),
// business_id, limit (default 50, at most 100), after. Phone and email
// filters read an index. Items are the spec's list form; GET
// /v1/leads?id=, PATCH answers and lead events add zip, address, city,
// state, source_url, source_page, notes, message (the last thing said),
// event_date, event_type and the mock's score, interaction_count, intent
// and last_contact_at. Absent values are null. PATCH /v1/leads (leads:write)
// changes only the fields sent (null clears any but id and status; status
// is one of new, contacted, qualified, converted, lost, unqualified, spam,
// do_not_contact) and always moves updated_at (a nanosecond past the last
// value on a frozen clock).
//
// # SMS
//
// POST /v1/sms/send (sms:write) checks, in this order, and refuses with the
// first failure (a refused text is not logged):
//
//	agent reachable, with a number               404 not_found (agents whose metadata has
//	                                             messaging_service_sid send as "messaging_service")
//	lead_id, when given, of the agent's business 404 not_found
//	magic numbers                                see Magic values
//	do-not-call: national registry or business   400 number_on_dnc
//	consent: opted out (STOP)                    400 number_opted_out
//	consent: never opted in                      400 number_opted_out
//	quiet hours: 21:00-07:59 recipient's time    400 tcpa_violation
//	content                                      400 content_blocked
//	carrier (sms_provider fault)                 500 sms_send_failed, logged as failed, sms.failed
//
// Consent is per business and number: an inbound text or an inbound call
// from the number grants it, unless the number opted out. STOP, STOPALL,
// UNSUBSCRIBE, CANCEL, END, QUIT and OPTOUT (the whole text, any case)
// revoke it; START, UNSTOP, YES and OPTIN restore it. POST /_mock/consent
// and Server.SetConsent set it directly.
//
// Quiet hours (the TCPA rule): texts may reach a recipient from 08:00 to
// 20:59 in the recipient's local time, taken from the area code of +1
// numbers (a fixed table of common US area codes across Eastern, Central,
// Mountain, Arizona, Pacific, Alaska and Hawaii time) or the country code
// (+44 London, +33 Paris, +49 Berlin, +34 Madrid, +39 Rome, +31 Amsterdam,
// +61 Sydney, +81 Tokyo, +91 Kolkata, +52 Mexico City, +55 São Paulo), else
// the business's time zone. The error carries recipient_local_time. Tests
// that send texts should start the clock in the daytime (WithStartTime).
//
// Content (the compliance rule): whole words, any case: cannabis, marijuana,
// cbd, thc, casino, gambling, sports betting, payday loan(s), guaranteed
// approval, debt forgiveness, free money, firearm(s), xxx; and links through
// the public shorteners bit.ly, tinyurl.com, goo.gl, ow.ly and t.co.
//
// A sent text answers {success, message_sid (SM + 32 hex), to, from, id,
// lead_id, status: sent}, joins the thread of lead_id or of the business's
// lead with that number (lead_id null when there is none), counts as an
// interaction, appears in the outbox (channel sms) and emits sms.sent; two
// seconds later it is delivered (sms.delivered). Inbound texts are logged
// with status received (sms.received).
//
// GET /v1/sms/messages (sms:read) reads threads, newest first: lead_id (404
// when the key does not reach the lead), phone (either party), agent_id,
// direction (inbound or outbound), business_id, limit (default 50, at most
// 100), after. Items: id, message_sid, lead_id, agent_id, business_id,
// direction, from, to, body, status (sent, delivered, failed, received),
// error, created_at, updated_at.
//
// POST /v1/sms/update-prompt (agents:write) replaces the agent's SMS prompt
// and writes an audit entry {agent_id, field sms_prompt, old_value,
// new_value, reason, actor user and key prefix, created_at}; read the trail
// with Server.PromptAudit or GET /_mock/prompt-audit?agent_id=.
//
// # Telephony admin API
//
//	POST /_mock/inbound-call   {to, from, caller: {name, email, phone, said, intent}, answered, voicemail, duration}
//	                           a caller rings a platform number -> 201 the call (ringing); Server.InboundCall
//	POST /_mock/inbound-sms    {to, from, body} -> 201 {message_id, lead_id, consent}; Server.InboundSMS
//	POST /_mock/dnc            {phone, business_id (omit: the national registry), on_list (default true)};
//	                           Server.AddDNC, Server.RemoveDNC
//	POST /_mock/consent        {business_id, phone, status: opted_in, opted_out or none}; Server.SetConsent
//	GET  /_mock/consent?business_id=&phone=          {status, on_dnc}; Server.Consent
//	GET  /_mock/provider-calls?call_id=              what the voice provider received; Server.ProviderCall
//	GET  /_mock/prompt-audit?agent_id=               the prompt audit trail; Server.PromptAudit
//	GET  /_mock/deliveries?kind=call_webhook&call_id= per-call webhooks, in the one delivery log
//	                                                  (see Delivery log); Server.Deliveries
//
// Bodies are validated against the mockInboundCall, mockInboundSMS, mockDNC
// and mockConsent schemas (400 invalid_request); the Go helpers validate
// their arguments the same way. An unknown platform number or business is
// 404.
package mockserver
