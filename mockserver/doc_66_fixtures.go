// # Fixtures
//
// Records can be loaded as they are, without going through the API or the
// simulations (no events, no webhooks, no lead collection): for analytics
// over a history, a pipeline in a given state, or a large dataset.
//
// In Go: Server.SeedLeads(businessID, []LeadFixture) and
// Server.SeedCalls(businessID, []CallFixture) store records in an existing
// business and return their ids in the order given; Server.LoadFixtures
// (and LoadFixturesFile) provisions accounts as NewAccount does and stores
// their records. Over HTTP: POST /_mock/fixtures with the same document
// answers 201 {accounts: [the account answers of POST /_mock/accounts]}.
// Standalone: cmd/voiceagent-mock -fixtures file.json loads a file at
// start (a bad file fails the start) and prints each account's key on a
// line of its own ("fixture key N: voiceagent_live_...").
//
// The document (schemas mockFixtures, mockFixtureLead, mockFixtureCall;
// unknown fields are rejected):
//
//	{"accounts": [{
//	  "business_name": "Acme", "email": "owner@acme.example", "scopes": ["..."],
//	  "leads": [{"id", "name", "first_name", "last_name", "email", "phone",
//	             "status" (default new), "source", "notes", "intent",
//	             "agent_id" (default the business's oldest agent),
//	             "created_at" (default now), "updated_at" (default created_at),
//	             "last_contact_at", "interaction_count",
//	             "consent" (opted_in, opted_out or none: the phone's SMS consent),
//	             "touch_count", "last_touch_at", "last_channel", "paused"
//	             (the lead's state in the outbound-sales pipeline)}],
//	  "calls": [{"id", "agent_id", "direction" (outbound default, or inbound),
//	             "status" (completed or ended by default, failed, no-answer:
//	             final statuses only), "to" (required outbound), "from"
//	             (required inbound; the other defaults to the agent's number),
//	             "name", "duration", "error" (failed calls; default no_answer),
//	             "summary", "transcript", "lead_id", "created_at" (default now)}]
//	}]}
//
// Rules: ids are generated unless given (a given id must be a UUID not
// taken yet); created_at may not be in the future; failed calls have no
// duration; lead_id must be a lead of the business, and by default a call
// is linked to the business's lead whose phone is the other party's
// number. A call ends at created_at + duration and counts towards the
// business's minutes; its recording URL is set when it has a duration.
// Leads are scored and indexed by phone and email like any lead. Records
// are stored oldest first; two records of a business never share a
// created_at (a tie is moved on by a nanosecond), so cursor walks stay
// exact. Seeding is all or nothing per call: an invalid record stores
// nothing and the error names it (leads[3]: ..., or the JSON pointer
// /accounts/0/leads/3/status over HTTP). A fixtures document is checked
// against its schema as a whole first; then its accounts load in order,
// each account's leads before its calls, and a record that fails a rule
// stops the load: what was stored before it stays. Seeding 100,000 leads and 100,000 calls takes a few seconds,
// most of it the schema validation of each record.
package mockserver
