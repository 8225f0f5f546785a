// # Agency management
//
// The four agency resources of document 2 (/v1/agency-profile,
// /v1/agency-offers, /v1/agency-enrollments, /v1/agency-installations) each
// answer GET (a read of the agency's current state) and POST (a command
// selected by action, validated by the agencyProfileCommand,
// agencyOfferCommand, agencyEnrollmentCommand and agencyInstallationCommand
// schemas: every bound, the full facts object, unknown properties rejected
// everywhere).
//
// Scopes: GET needs workspaces:read. POST needs workspaces:write; enrollment
// commands also agents:write. Installation commands (the spec leaves their
// scope open) need workspaces:write; run_scenarios also evals:write. Enrolling
// into an offer with the care package, and launching its campaign
// (resolve_update of a care_launch update), need sms:write.
//
// # Agencies, members and roles
//
// bootstrap creates an agency (a partner) with the calling user as its
// admin; the profile starts in commercialMode commission (bootstrap has no
// commercialMode field). A user belongs to at most one agency: bootstrap or
// accept_invite by a member of an agency is 409 conflict. Every other
// command names its agency with partnerId; a caller who is not a current
// member is refused with 403 (an agency that does not exist looks the same).
// Roles:
//
//	command                                          admin  operator  reader
//	profile update, invite, revoke_invite,            yes    -         -
//	  assign, unassign, revoke_member, issue_key
//	offers save, preview                              yes    yes       -
//	offers publish, archive                           yes    -         -
//	enrollments create, save, preview, enroll,        yes    assigned  -
//	  rotate_owner_link, revoke
//	installations (every command)                     yes    assigned  -
//	every GET                                         yes    yes       yes
//
// "assigned": an operator acts only on client businesses it is assigned to
// (assign gives a member the business role admin or member on a client of
// the agency; an enrollment entry naming an unassigned client, or an
// installation of one, is 403). Whoever enrolls a new client is assigned to
// it as admin. A client's owner role never changes through assign or
// unassign (409). revoke_member removes the member, their assignments and
// their partner keys (which then answer 401); removing the last admin is
// 409.
//
// Invites: invite emails a link with a token (in the outbox; never in an
// answer or a read) valid 7 days; accept_invite with that token makes the
// calling user a member with the invite's role (a wrong token is 403; a
// revoked, accepted or expired invite is 409 invalid_state). At most 100
// members and 100 pending invites (409 beyond); one pending invite per
// address.
//
// issue_key mints a partner key acting as the caller and reaching exactly
// the agency's client businesses (the businesses its enrollments created).
// Its scopes must be scopes of the API, not platform-only, not repeated (400)
// and held by the caller (403). The key's value is in the receipt only.
//
// # Guards and error codes
//
//	400 invalid_request          schema failure; missing or over-long (150) Idempotency-Key on create/enroll
//	403 forbidden                scope, membership, role, assignment, owner-only command, wrong token
//	403 approval_required        enroll without the owner's approval of the exact fingerprint
//	404 not_found                offer, version, session, installation or update absent or another agency's
//	409 stale_revision           expectedRevision is not the current revision (error.currentRevision names it)
//	409 fingerprint_mismatch     the fingerprint is not the content's (or the content changed since its preview)
//	409 invalid_state            the record's state does not allow the command (tables below)
//	409 conflict                 duplicates: a second agency, member or pending invite, a claimed link, the last admin
//	503 service_unavailable      a dependency is unavailable (see Retained commands)
//
// Revisions are uuids for the profile, offers and enrollment sessions, and
// 64 lowercase hex characters for installations; every successful change of
// a record gives it a new revision (the receipt shows it). The profile's
// revision changes on bootstrap and update only (members and invites have
// no revision guard). Guards are checked under the store's write lock, so of
// concurrent commands carrying the same expectedRevision exactly one wins
// and the others get 409.
//
// Fingerprints are SHA-256, in 64 lowercase hex characters, of the canonical
// JSON of the content: objects with members sorted by key (bytewise),
// no insignificant whitespace, numbers in their shortest round-trip form
// (encoding/json's float64 form), strings with only the escapes JSON needs
// (no HTML escaping). The SDK's agency.Fingerprint computes the same. The
// content of each fingerprint:
//
//	offer                 the draft as saved
//	enrollment session    {"offerVersionId": ..., "entries": [...]} with the entries as sent
//	client facts          the facts (this is an installation's factsRevision)
//	route receipt         the receipt content (installationId, businessId, agentId, phoneNumber, routing, fallback, intakeCoverage)
//	handoff               the handoff content (installationId, businessId, ownerUserId, ownerEmail, agentId, phoneNumber,
//	                      offerVersionId, packages, routeReceiptFingerprint, carePackage, reporting)
//	pending update        {"updateId", "kind", "parts", "proposed"}
//
// # Idempotency of agency commands
//
// Every agency POST honours Idempotency-Key as every POST does (a replay
// returns the first answer, receipt id included, with Idempotent-Replayed:
// true), with the spec's bound of 150 characters. create and enroll require
// the header: without it they are 400 invalid_request with a detail naming
// Idempotency-Key. The SDK's Create and Enroll take the key in their params
// and refuse to send without one.
//
// # Agency receipts
//
// A command answers 200 with a receipt {action, receiptId, recordedAt} and
// the record as it is now (profile, member, invite, key, offer,
// offerVersion, session, installation, update, scenarioRun, depending on
// the command); enroll answers 202 with a receipt per client (clients).
//
// # Offers
//
//	state       command   condition                               next        also
//	(none)      save      no offerId                              drafted     a new offer; fingerprint of the draft
//	drafted,    save      offerId, expectedRevision               drafted     the draft is replaced; published versions stay
//	previewed,
//	published
//	drafted,    preview                                          previewed   the receipt has the fingerprint
//	previewed
//	previewed   publish   expectedRevision, fingerprint            published   a new immutable offer version (offerVersionId)
//	any but     archive   expectedRevision                        archived    its versions take no new enrollments (409)
//	archived
//
// Other commands on an offer are 409 invalid_state (publishing an offer that
// is not previewed, previewing a published one, anything on an archived one).
// GET shows the latest 10 versions of each offer.
//
// # Enrollment sessions
//
// create (admin or operator) names a published offer version of the agency
// and 1 to 50 entries: an existing client (businessId, a business of the
// agency) or a new one (newClient), never the same client twice (400). With
// ownerEmail, an owner link is emailed there (outbox); its token is never in
// an answer or a read. The owner (any user holding the token, with the
// enrollment scopes) claims the session with claim_owner and then alone may
// approve it; the claimed owner can read the session with GET ?id=.
//
//	state                       command              condition                                  next        also
//	(none)                      create               Idempotency-Key                            draft       owner link issued when ownerEmail is given
//	(none)                      start_self_service   a published version (any caller)           draft       one new client; the caller is the claimed owner
//	draft, previewed, approved  save                 expectedRevision                           draft       entries replaced; the approval is dropped
//	draft, previewed, approved  owner_save           the owner; one entry; expectedRevision     draft       facts replaced; the approval is dropped
//	draft, previewed, approved  preview                                                         previewed   (approved stays approved); plan per entry
//	draft, previewed, approved  claim_owner          the link's token; unclaimed                same        the caller becomes the owner
//	previewed                   approve_owner        the owner; expectedRevision; fingerprint   approved    an approval (approvalId) of that fingerprint
//	draft, previewed            finish_self_service  the owner; a self-service session          approved    the owner's approval of the current fingerprint
//	draft, previewed, approved  rotate_owner_link    expectedRevision; ownerEmail; not self-    same, or    new token emailed, old one refused (403);
//	                                                 service                                    previewed   claim and approval dropped
//	draft, previewed, approved  revoke                                                          revoked     the owner link stops working
//	approved                    enroll               Idempotency-Key; expectedRevision;         enrolling   202 with a receipt per client
//	                                                 fingerprint; approvalIds has the approval  or enrolled
//	enrolling                   (clock)              every waiting client settled               enrolled
//
// enroll on a draft is 409 invalid_state (preview it again), on a previewed
// session without the owner's approval of its current fingerprint (or with
// approvalIds missing that approval) 403 approval_required; approvalIds
// naming an id that is not an approval of the session is 400. Enrolled,
// enrolling and revoked sessions take no command (409 invalid_state).
//
// Per-client receipts of enroll (state, reason):
//
//	enrolled   a new client was provisioned (a business linked to the agency, owned by the entry's ownerEmail, else
//	           the session's, else the claimed owner; an intake agent with the facts in its prompt, a number; no key
//	           or session), or an existing client without installation was installed; reason unchanged when the
//	           client is installed with the same facts already
//	updated    an installed client got new facts: a pending update (updateId) of its installation
//	waiting    dependency_unavailable: the voice provider (fault target voice_provider) could not create the new
//	           client's assistant; retried every 30 s of simulated time until it is provisioned
//	conflict   stale_revision: the entry's expectedRevision is not the client's current facts revision (null for
//	           a client without installation; a new client must send null); reconciliation_required: a client with
//	           that externalRef exists already (existingBusinessId) and must be enrolled by businessId.
//	           Nothing changes for a client in conflict; the other clients proceed.
//
// preview answers a plan with what enroll would do per entry (create_client,
// install, update, unchanged or conflict, with the client's current
// revision).
//
// # Installations
//
//	step / state          command                 condition                                    next
//	route pending,        preview_route_receipt   expectedRevision; fingerprint, if sent,      route previewed
//	  previewed                                   equals the content's
//	route previewed       approve_route_receipt   expectedRevision; fingerprint, if sent,      route approved, handoff pending,
//	                                              equals the previewed one; content unchanged  state awaiting_handoff
//	handoff pending,      preview_handoff         the route receipt approved                   handoff previewed
//	  previewed
//	handoff previewed     approve_handoff         as approve_route_receipt                     handoff approved, state live
//	update pending        resolve_update          expectedRevision; the update's fingerprint;  update resolved
//	                                              a choice for every part
//	any                   run_scenarios           evals:write; known scenario names            a scenario run (latest 10 kept)
//
// A new installation is awaiting_route with its route receipt pending and
// its handoff blocked. An approval checks that the content is still what was
// previewed: otherwise 409 fingerprint_mismatch, preview again. An approved
// step cannot be previewed again (409 invalid_state) until a change resets
// it.
//
// Pending updates: facts_change (a later enrollment brought new facts; parts
// are the top-level facts parts that differ; choices map every part to
// "apply" or "keep", and nothing else: 400 naming /choices/<part>) and
// care_launch (the care package prepared a draft campaign at enroll; choices
// {"launch": "queue"} queues it, "hold" holds it; needs sms:write). Applying
// facts changes the client's facts revision and its agent's prompt; applying
// routing, fallback or intakeCoverage sends an approved route receipt back to
// pending and the handoff to blocked (state awaiting_route).
//
// run_scenarios runs the named scenarios (all when none is named:
// after_hours, booking, emergency, lead_capture, pricing_question,
// wrong_number); each passes when the client's facts cover it
// (intakeCoverage, booking.enabled, fallback, routing, faqs; wrong_number
// always).
//
// # Agency reads
//
// GET takes partnerId (default: the caller's agency; a malformed one is 400)
// and after, the id (uuid) of the last record of the previous page (400 when
// it names no record of the list). Lists are newest first and bounded:
// offers and installations 50 a page, sessions 20 a page, with has_more.
// ?id=<uuid> reads one record (404 when absent or another agency's).
//
//	GET /v1/agency-profile        {profile, role, members[{userId, email, role, joinedAt, assignments}],
//	                               invites (latest 100, no tokens), keys (latest 100 partner keys, no values),
//	                               operations}
//	GET /v1/agency-offers         {offers, has_more, operations}
//	GET /v1/agency-enrollments    {sessions (entries, facts, ownerLink without token, ownerApproval, clients),
//	                               has_more, operations}
//	GET /v1/agency-installations  {installations (facts, routeReceipt, handoff, updates (latest 20), carePackage,
//	                               scenarioRuns), has_more, operations}
//
// operations are the latest 20 retained commands of the resource. Nothing a
// read shows is a token or a secret (facts hold connection references only).
//
// # Retained commands (503)
//
// A fault rule with target dependency (FaultTargetDependency) on an agency
// path makes the platform's dependency unavailable. A GET then answers 503
// service_unavailable, never an empty list. A command checks its guards
// first (so a command that would be refused is refused), and is then
// retained instead of applied: it answers 503 with error.operation
// {operationId, status: pending, ...} and is listed under operations by the
// resource's GET (a retained bootstrap is shown to its caller before the
// agency exists). The platform retries it every 30 s of simulated time while
// the dependency is unavailable; when it runs, its guards are checked again:
// the operation becomes applied (with the receipt as result) or rejected
// (with the error it would have had, for example stale_revision). A replay
// of the command's Idempotency-Key returns the first answer, the 503.
package mockserver
