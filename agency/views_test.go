package agency_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
)

// notNull is the expected value of a member that must be present and not
// null, whatever its value (times, generated ids and revisions).
type notNull struct{}

// set is the notNull expectation.
var set = notNull{}

// requireMembers checks that obj has exactly the members of want: a want of
// set is any value but null, a nested map is checked the same way, and any
// other want is compared as decoded (numbers are float64).
func requireMembers(t *testing.T, at string, obj any, want map[string]any) {
	t.Helper()
	got, ok := obj.(map[string]any)
	require.True(t, ok, "%s: want an object, got %#v", at, obj)
	var gotKeys, wantKeys []string
	for k := range got {
		gotKeys = append(gotKeys, k)
	}
	for k := range want {
		wantKeys = append(wantKeys, k)
	}
	slices.Sort(gotKeys)
	slices.Sort(wantKeys)
	require.Equal(t, wantKeys, gotKeys, "%s: members", at)
	for k, w := range want {
		switch w := w.(type) {
		case notNull:
			assert.NotNil(t, got[k], "%s.%s", at, k)
		case map[string]any:
			requireMembers(t, at+"."+k, got[k], w)
		default:
			assert.Equal(t, w, got[k], "%s.%s", at, k)
		}
	}
}

// TestReadViewsKeepTheirMembers reads each agency list and record (offers,
// enrollment sessions, installations) as raw JSON and checks every member
// of each view, the optional ones both null and set; a receipt embeds the
// very view a read shows right after it.
func TestReadViewsKeepTheirMembers(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	get := func(path, id string) map[string]any {
		t.Helper()
		q := struct {
			ID string `url:"id,omitempty"`
		}{id}
		var out map[string]any
		require.NoError(t, c.Do(ctx, http.MethodGet, path, q, nil, &out))
		return out
	}
	post := func(path string, body map[string]any) map[string]any {
		t.Helper()
		body["partnerId"] = w.partner
		var out map[string]any
		require.NoError(t, c.Do(ctx, http.MethodPost, path, nil, body, &out, voiceagent.WithIdempotencyKey("views-"+body["action"].(string))))
		return out
	}
	// listed returns the item of list with the id member idKey, and checks
	// that a ?id= read answers the same.
	listed := func(path, key, idKey, id string) map[string]any {
		t.Helper()
		list := get(path, "")
		requireMembers(t, path, list, map[string]any{"has_more": false, key: set, "operations": []any{}})
		for _, it := range list[key].([]any) {
			if it.(map[string]any)[idKey] == id {
				assert.Equal(t, it, any(get(path, id)), "%s?id=%s answers the listed view", path, id)
				return it.(map[string]any)
			}
		}
		t.Fatalf("%s: %s %s not listed", path, idKey, id)
		return nil
	}

	// Offers: one published (with a version), one drafted, one archived.
	v := w.publish(offerDraft("Care", agency.PackageConvert, agency.PackageCare))
	drafted, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("Drafted", agency.PackageConvert)})
	require.NoError(t, err)
	toArchive, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("Gone", agency.PackageConvert)})
	require.NoError(t, err)
	archived := post("/v1/agency-offers", map[string]any{"action": "archive", "offerId": toArchive.Offer.OfferID, "expectedRevision": toArchive.Offer.Revision})
	offer := func(id, state string, published any, versions any, previewed, publishedAt, archivedAt any) map[string]any {
		return map[string]any{
			"offerId": id, "partnerId": w.partner, "state": state, "name": set, "draft": set, "fingerprint": set, "revision": set,
			"publishedVersionId": published, "versions": versions, "createdAt": set, "updatedAt": set,
			"previewedAt": previewed, "publishedAt": publishedAt, "archivedAt": archivedAt,
		}
	}
	pub := listed("/v1/agency-offers", "offers", "offerId", v.OfferID)
	requireMembers(t, "published offer", pub, offer(v.OfferID, "published", v.OfferVersionID, set, set, set, nil))
	requireMembers(t, "offer version", pub["versions"].([]any)[0], map[string]any{
		"offerVersionId": v.OfferVersionID, "offerId": v.OfferID, "fingerprint": set, "packages": set, "publishedAt": set,
	})
	requireMembers(t, "drafted offer", listed("/v1/agency-offers", "offers", "offerId", drafted.Offer.OfferID),
		offer(drafted.Offer.OfferID, "drafted", nil, []any{}, nil, nil, nil))
	gone := listed("/v1/agency-offers", "offers", "offerId", toArchive.Offer.OfferID)
	requireMembers(t, "archived offer", gone, offer(toArchive.Offer.OfferID, "archived", nil, []any{}, nil, nil, set))
	assert.Equal(t, gone, archived["offer"], "the archive receipt shows the offer as read")

	// Sessions: a draft without an owner, and one enrolled with its owner's
	// approval and a client receipt.
	draft := post("/v1/agency-enrollments", map[string]any{"action": "create", "offerVersionId": v.OfferVersionID,
		"entries": []any{map[string]any{"newClient": map[string]any{"name": "D", "externalRef": "draft-1"}, "expectedRevision": nil, "facts": minimalFacts()}}})
	draftID := draft["session"].(map[string]any)["sessionId"].(string)
	session := func(id, state string, ownerEmail, link, approval, clients, enrolledAt any) map[string]any {
		return map[string]any{
			"sessionId": id, "partnerId": w.partner, "offerVersionId": v.OfferVersionID, "state": state, "selfService": false,
			"revision": set, "fingerprint": set, "ownerEmail": ownerEmail, "entries": set, "ownerLink": link,
			"ownerApproval": approval, "clients": clients, "createdAt": set, "updatedAt": set, "enrolledAt": enrolledAt,
		}
	}
	got := listed("/v1/agency-enrollments", "sessions", "sessionId", draftID)
	requireMembers(t, "draft session", got, session(draftID, "draft", nil,
		map[string]any{"status": "none", "issuedAt": nil, "claimedAt": nil, "claimedBy": nil}, nil, []any{}, nil))
	requireMembers(t, "draft entry", got["entries"].([]any)[0], map[string]any{
		"newClient": map[string]any{"name": "D", "externalRef": "draft-1"}, "expectedRevision": nil, "facts": set,
	})
	assert.Equal(t, got, draft["session"], "the create receipt shows the session as read")

	ownerEmail := "views-owner@client.example"
	ownerAcct, owner := w.account(ownerEmail)
	sess, appr := w.approvedSession(v.OfferVersionID, ownerEmail, owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "Views", ExternalRef: "views-1"}, Facts: fullFacts()})
	r, err := w.enroll(sess, appr)
	require.NoError(t, err)
	instID := r.Clients[0].InstallationID
	got = listed("/v1/agency-enrollments", "sessions", "sessionId", sess.SessionID)
	requireMembers(t, "enrolled session", got, session(sess.SessionID, "enrolled", ownerEmail,
		map[string]any{"status": "claimed", "issuedAt": set, "claimedAt": set, "claimedBy": ownerAcct.UserID},
		map[string]any{"approvalId": appr, "fingerprint": sess.Fingerprint, "approvedBy": ownerAcct.UserID, "approvedAt": set},
		set, set))
	requireMembers(t, "client receipt", got["clients"].([]any)[0], map[string]any{
		"entry": 0.0, "state": "enrolled", "reason": nil, "detail": nil, "businessId": r.Clients[0].BusinessID,
		"externalRef": "views-1", "existingBusinessId": nil, "installationId": instID, "updateId": nil,
		"attempts": 1.0, "updatedAt": set,
	})

	// Installations: as installed (nothing previewed, the care launch
	// pending), then with the route receipt approved, the update resolved
	// and a scenario run.
	path := "/v1/agency-installations"
	step := func(state string, fp, content, previewed, approved, by any) map[string]any {
		return map[string]any{"state": state, "fingerprint": fp, "content": content, "previewedAt": previewed, "approvedAt": approved, "approvedBy": by}
	}
	installation := func(state string, route, handoff map[string]any, pending float64, care map[string]any, runs any) map[string]any {
		return map[string]any{
			"installationId": instID, "partnerId": w.partner, "businessId": r.Clients[0].BusinessID, "businessName": "Views",
			"agentId": set, "phoneNumber": set, "sessionId": sess.SessionID, "offerVersionId": v.OfferVersionID,
			"state": state, "revision": set, "factsRevision": set, "facts": set, "routeReceipt": route, "handoff": handoff,
			"pendingUpdates": pending, "updates": set, "carePackage": care, "scenarioRuns": runs,
			"createdAt": set, "updatedAt": set,
		}
	}
	care := func(state string, decided any) map[string]any {
		return map[string]any{"state": state, "version": "2026-06", "variant": "standard", "preparedAt": set, "decidedAt": decided}
	}
	update := func(state string, choices, resolved, by any) map[string]any {
		return map[string]any{
			"updateId": set, "kind": "care_launch", "state": state, "parts": []any{"launch"}, "proposed": set,
			"fingerprint": set, "choices": choices, "createdAt": set, "resolvedAt": resolved, "resolvedBy": by,
		}
	}
	got = listed(path, "installations", "installationId", instID)
	requireMembers(t, "installed", got, installation("awaiting_route",
		step("pending", nil, nil, nil, nil, nil), step("blocked", nil, nil, nil, nil, nil), 1, care("draft", nil), []any{}))
	u := got["updates"].([]any)[0].(map[string]any)
	requireMembers(t, "pending update", u, update("pending", nil, nil, nil))

	cmd := func(action string, extra map[string]any) map[string]any {
		t.Helper()
		cur := get(path, instID)
		body := map[string]any{"action": action, "installationId": instID, "expectedRevision": cur["revision"]}
		for k, x := range extra {
			body[k] = x
		}
		rc := post(path, body)
		assert.Equal(t, get(path, instID), rc["installation"], "the %s receipt shows the installation as read", action)
		return rc
	}
	pv := cmd("preview_route_receipt", nil)
	routeContent := map[string]any{
		"installationId": instID, "businessId": r.Clients[0].BusinessID, "agentId": set, "phoneNumber": set,
		"routing": set, "fallback": set, "intakeCoverage": set,
	}
	requireMembers(t, "previewed route", pv["installation"].(map[string]any)["routeReceipt"],
		step("previewed", pv["fingerprint"], routeContent, set, nil, nil))
	cmd("approve_route_receipt", nil)
	hv := cmd("preview_handoff", nil)
	requireMembers(t, "previewed handoff content", hv["installation"].(map[string]any)["handoff"].(map[string]any)["content"], map[string]any{
		"installationId": instID, "businessId": r.Clients[0].BusinessID, "ownerUserId": set, "ownerEmail": set,
		"agentId": set, "phoneNumber": set, "offerVersionId": v.OfferVersionID, "packages": set,
		"routeReceiptFingerprint": pv["fingerprint"], "carePackage": care("draft", nil), "reporting": set,
	})
	resolved := cmd("resolve_update", map[string]any{"updateId": u["updateId"], "fingerprint": u["fingerprint"], "choices": map[string]any{"launch": "hold"}})
	requireMembers(t, "resolved update", resolved["update"], update("resolved", map[string]any{"launch": "hold"}, set, w.env.Account.UserID))
	cmd("run_scenarios", map[string]any{"scenarios": []any{"wrong_number"}})

	got = listed(path, "installations", "installationId", instID)
	requireMembers(t, "reviewed", got, installation("awaiting_handoff",
		step("approved", pv["fingerprint"], routeContent, set, set, w.env.Account.UserID),
		step("previewed", hv["fingerprint"], set, set, nil, nil), 0, care("held", set), set))
	assert.Equal(t, resolved["update"], got["updates"].([]any)[0], "the resolve_update receipt shows the update as read")
	requireMembers(t, "scenario run", got["scenarioRuns"].([]any)[0], map[string]any{
		"runId": set, "ranAt": set, "ranBy": w.env.Account.UserID,
		"results": []any{map[string]any{"scenario": "wrong_number", "passed": true, "detail": "the agent ends the call politely"}},
	})
}
