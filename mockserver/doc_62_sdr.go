// # Outbound-sales pipeline (SDR)
//
// The pipeline lives under /api/sdr (no /v1): GET /sdr/config, PUT
// /sdr/config (schema sdrConfigUpsert), GET /sdr/pipeline, POST /sdr/action
// (sdrAction), POST /sdr/run (sdrRun), GET /sdr/report and GET
// /sdr/activity. A bearer key needs sdr:read for the GETs and sdr:write for
// PUT and POST; a dashboard session (cookie voiceagent_session) skips the
// scope check. Every request names a business (businessId in the query or
// the body): a missing query parameter is 400 bad_request, an unknown
// business 404, a business the caller does not reach 403; a leadId of
// another business is 404.
//
// # SDR configuration
//
// GET /sdr/config answers {businessId, enabled, min_touch_gap_hours,
// max_touches, auto_call, auto_email, auto_sms, sdr_agent_id,
// business_hours_start, business_hours_end, email_from_account_id} and the
// mock's configured (false until the first PUT), timezone (the zone
// business hours are read in: the business's, America/New_York by
// default), next_run_at (the scheduled runner's next run, null when
// disabled), last_run_at and last_run_trigger (the last run that
// dispatched), created_at and updated_at. A business without a saved
// configuration reads the safe defaults, which dispatch nothing by
// themselves:
//
//	enabled               false   (runs answer 400; no scheduled runner)
//	min_touch_gap_hours   24
//	max_touches           5
//	auto_call             false
//	auto_email            false
//	auto_sms              false
//	sdr_agent_id          null    (calls come from the business's oldest agent)
//	business_hours_start  9
//	business_hours_end    17
//	email_from_account_id null    (emails come from sdr@voiceagent.example)
//
// PUT /sdr/config upserts: the fields sent change, the others keep their
// value (or the default), and the answer is the whole configuration. The
// schema bounds: hours are integers 0 to 23, min_touch_gap_hours 0 to 8760
// and max_touches 1 to 1000 (the upper bounds are the mock's; the spec gives
// none). sdr_agent_id must be an agent of the business (400
// invalid_request naming /sdr_agent_id); "" clears it. The mock has no
// email accounts: email_from_account_id is used as the sender address as
// given.
//
// # Segments
//
// Every lead of the business is in exactly one segment, or on
// manual_review, computed on every read from the lead's data, its pipeline
// state (touches) and the clock. The first rule that matches wins:
//
//	 #  segment             rule
//	 1  cold                status converted, unqualified, spam or do_not_contact
//	                        (the pipeline never touches these)
//	 2  exhausted           touches >= max_touches
//	 3  manual_review       no channel may reach the lead: no phone (or a phone on a
//	                        do-not-call list) and no email
//	 4  churned_recent      status lost, updated less than 30 days ago (else cold)
//	 5  churned_recent      a trial lead whose 14-day trial ended less than 30 days
//	                        ago (else cold)
//	 6  speed_to_lead       not a trial lead, status new, never touched, created less
//	                        than 1 hour ago
//	 7  trial_ending        a trial lead in the last 3 days of its trial (age 11 to 14 days)
//	 8  contacted_no_reply  touched, no interaction since the last touch, last touch
//	                        less than 30 days ago
//	 9  new_trial_stuck     a trial lead less than 3 days old, status new
//	10  trial_going_dark    a trial lead whose last activity is 3 days old or more
//	11  fresh_demo_caller   last activity less than 24 hours ago
//	12  warm_demo_caller    last activity 24 to 72 hours ago
//	13  cooling_demo        last activity 3 to 14 days ago
//	14  cold                anything else (quiet for 14 days or more)
//
// Definitions. A trial lead is one whose source contains "trial" (any
// case: trial, trial_signup, free_trial); its trial runs 14 days from its
// created_at (the platform's trial length). Every other lead is a "demo
// caller" (the segments are named for the callers of a demo line; a lead
// from any source, and an active mid-trial lead, land there). Last activity
// is the lead's last_contact_at (any recorded interaction) or its
// created_at. An interaction since the last touch is a last_contact_at
// after it: an inbound call or text, or a completed call (the callee
// answered). A text the pipeline sends records its own contact at the
// touch's instant, which does not count; an email records none; a call
// that fails records none. Age is measured from created_at.
//
// A lead's score, 0 to 100, orders the pipeline: 60% of the lead score
// (see Leads) rounded, plus the segment's urgency: speed_to_lead 40,
// trial_ending 35, fresh_demo_caller and new_trial_stuck 30,
// warm_demo_caller 20, contacted_no_reply and trial_going_dark 15,
// churned_recent and cooling_demo 10, the others 0.
//
// # Next actions and cadence
//
// A segment reaches its leads through channels in an order:
//
//	speed_to_lead, fresh_demo_caller   call, sms, email
//	warm_demo_caller                   sms, call, email
//	cooling_demo, trial_going_dark,
//	churned_recent                     email, sms, call
//	new_trial_stuck, trial_ending      call, email, sms
//	contacted_no_reply                 the channel after the last one used, in the
//	                                   circle call, sms, email
//	exhausted, cold, manual_review     none
//
// A channel reaches a lead when the lead has what it needs: a call a phone
// that is on no do-not-call list (the national registry or the
// business's), a text such a phone that opted in to texts (see SMS
// consent), an email an address. next_action is the first channel in the
// order that reaches the lead and whose auto_* switch is on; when no such
// channel's switch is on, the first that reaches the lead (a suggestion for
// a person: runs skip it), else none.
//
// The cadence: a lead may be touched min_touch_gap_hours after its last
// touch and after its last skip (next_action_at; null when at once), at
// most max_touches times. A lead is actionable when it has a next action,
// is not paused and the cadence allows a touch now.
//
// # Pipeline read
//
// GET /sdr/pipeline?businessId=&segment=&limit= answers {businessId,
// enabled, summary {total_leads, actionable, needs_manual, segments
// {segment: count, every segment}}, leads [...]}. The summary counts every
// lead of the business whatever the filter; needs_manual counts
// manual_review. leads are the leads of segment (any of the twelve names;
// another is 400 invalid_request), or of all segments, highest score first
// (then newest), at most limit (default 100, 1 to 1000). A lead: {id, name,
// email, phone, status, source, segment, score, touch_count, last_touch,
// last_channel, next_action (call, email, sms or none), next_action_at,
// actionable, paused, created_at, updated_at}. The read segments every
// lead: it costs O(leads), about 20 ms for 100,000 leads (see the
// benchmark), and keeps only the first limit in a bounded heap.
//
// # Actions
//
// POST /sdr/action {businessId, leadId, action} answers {success: true,
// action, leadId, detail, activityId, segment (after the action),
// touch_count} and, for touches, callId, messageId or emailId.
//
// call, email and sms are touches. Before dispatching, in order: a lead
// with status do_not_contact is 400 number_on_dnc; touches >= max_touches
// is 429 rate_limited with max_touches and touch_count in the error and no
// nextAllowedAt; a touch before next_action_at is 429 rate_limited with
// error.nextAllowedAt (RFC 3339) and Retry-After (seconds of simulated time
// until then). Both carry X-Voiceagent-Should-Retry: false, so the SDK
// returns them at once instead of retrying in real time a wait the
// simulated clock decides. A lead without
// the phone (call, sms) or email the channel needs is 400 invalid_request.
// These refusals are not logged. Then the dispatch:
//
//   - call: a real simulated call (the path of POST /v1/calls, see Call
//     states) by sdr_agent_id, else the business's oldest agent, from the
//     agent's number, else the business's first number, to the lead's phone,
//     linked to the lead, with context "Outbound sales follow-up
//     (<segment>)". The pipeline honours do-not-call lists, which API calls
//     do not: a phone on one is 400 number_on_dnc. The magic +15005550003
//     is 500 call_failed.
//   - sms: the SMS path of POST /v1/sms/send (consent, quiet hours, content,
//     the carrier; the same errors) from sdr_agent_id when it has a number,
//     else from the agent of the business's first number. The text is "Hi
//     <first name>, it's <business>. <a line for the segment> Reply STOP to
//     opt out."
//   - email: queued at once (answered with emailId), sent 30 seconds later
//     on the clock: it reaches the outbox (channel email, subject "Following
//     up from <business>"), a new lead becomes contacted, and
//     lead_email.sent is emitted. An address at the magic domain
//     @email-fails.example bounces instead: lead_email.failed, with the
//     email's error. Either event carries {id, lead_id, business_id, to,
//     from, subject, body, status, error, created_at, sent_at}.
//
// A dispatch that succeeds is a touch: touch_count + 1, last_touch now,
// last_channel. A dispatch that fails is logged (success false, the error
// in detail) and answered with its error; it is no touch. Calls and texts
// also count as interactions on the lead and move a new lead to contacted
// as any call or text does (see Leads).
//
// skip, pause and resume are not touches (no cadence applies): skip holds
// the lead for min_touch_gap_hours from now; pause keeps the lead out of
// runs (its segment stays; manual touches still work); resume undoes
// pause. All are logged.
//
// # Runs
//
// POST /sdr/run {businessId, dryRun} is 400 bad_request when the
// configuration is not enabled. Otherwise it answers {success, businessId,
// dryRun, trigger (run), in_business_hours, summary {calls_queued,
// emails_queued, sms_sent, escalated, failed}, results [{success, action,
// leadId, detail, segment}], skipped, skipped_by_reason, errors [{leadId,
// action, code, message}]}. A run goes through the leads in pipeline order
// (score, then newest):
//
//   - a lead on manual_review not escalated yet is escalated: a result with
//     action escalate, summary.escalated + 1, an activity entry; it is not
//     counted again while it stays there (it is when it comes back after
//     leaving).
//   - a lead with next action none is passed over.
//   - a lead with a next action is skipped (skipped + 1 and
//     skipped_by_reason) when paused, when the cadence holds it (cadence),
//     when the next action's auto_* switch is off (channel_off), outside
//     business hours (outside_business_hours), past the run's cap of 100
//     dispatches (run_limit), or, for a text, in the recipient's quiet
//     hours (sms_quiet_hours; the run waits rather than fail).
//   - otherwise the next action is dispatched as POST /sdr/action does:
//     summary calls_queued, emails_queued or sms_sent + 1, or on failure
//     failed + 1 and an entry in errors.
//
// Business hours are read in the business's time zone: [start, end) when
// start < end, overnight (from start, or before end) when start > end, the
// whole day when equal. Activity entries of a run have trigger run.
//
// dryRun true computes the same plan with the same checks (the magic
// failing numbers, do-not-call lists, SMS compliance) and dispatches
// nothing, logs nothing and escalates nothing: its summary, results,
// skipped and errors are what a real run at that moment would answer; only
// the detail of successes differs ("would call ..." instead of the
// dispatched call's id).
//
// # Scheduled runner
//
// Enabling the configuration (PUT with enabled true when it was not)
// starts the business's runner: a run every two hours of the clock from
// that moment (next_run_at), with trigger scheduled, exactly as POST
// /sdr/run. Disabling stops it (next_run_at null); enabling again starts a
// new two-hour cadence from then (never two runners). A scheduled run
// outside business hours dispatches nothing. The runner's route POST
// /api/sdr/cron runs every enabled business now; it opens only to the
// platform's internal secret in X-Voiceagent-Cron-Secret
// (Server.SDRCronSecret): a key, a session or nothing is 401 unauthorized.
// The admin route POST /_mock/sdr/cron does the same without a secret. Both
// answer {runs: [run answers]}, in business id order.
//
// # SDR report and activity
//
// GET /sdr/report?businessId=&period= (period today: since midnight in the
// business's time zone; week, the default: the last 7 days; month: the
// last 30 days; another is 400 invalid_request) answers {businessId,
// period, since, until, actions {call, email, sms, skip, pause, resume,
// escalate: entries of the period}, outcomes {call_pending,
// call_completed, call_failed, sms_sent, sms_delivered, sms_failed,
// email_queued, email_sent, email_failed, refused: the current outcome of
// the period's touch entries; refused are dispatches that failed before
// anything was sent}, new_leads (created in the period), hot_leads (now in
// speed_to_lead, fresh_demo_caller or new_trial_stuck), stale_leads (now on
// manual_review), segments {segment: count now}}.
//
// GET /sdr/activity?businessId=&leadId=&limit= answers {businessId,
// activity [{id, leadId, action, trigger (manual, run or scheduled),
// success, detail, segment (when the action was taken), callId, messageId,
// emailId, created_at}], has_more}, newest first; limit default 50, 1 to
// 200; a leadId that is not a lead of the business is 404.
//
// Callbacks (callback.scheduled, callback.completed) are not modelled.
package mockserver
