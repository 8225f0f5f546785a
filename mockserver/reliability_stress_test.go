package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/sdr"
)

// The concurrency stress test: stressGoroutines goroutines mix every write
// route of the API on two shared tenants, while a reader walks pages; then
// the state is checked. Every write route of the route table must have a
// writer in stressWriters: a route added later fails this test until it
// gets one.

const stressGoroutines = 32

// stressEnv is the shared world of the stress test.
type stressEnv struct {
	srv     *TestServer
	hc      *http.Client
	tenants [2]*Account
	// leads[t] are tenant t's leads (from inbound texts), updated by all.
	leads [2][]string
	// textTo[t] are numbers tenant t may text (opted in, no lead).
	textTo [2][]string
	// sharedAgent[t] is the agent whose metadata and SMS prompt all update.
	sharedAgent [2]string
	receiver    string
	partner     string
	profileRev  string // the agency profile's revision after bootstrap
	cronSecret  string // the SDR runner's internal secret
}

// stressAnswer is one response: status and the decoded JSON object.
type stressAnswer struct {
	status int
	body   map[string]any
	raw    string
}

func (a stressAnswer) str(path ...string) string {
	var v any = a.body
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

// stressResult is a response or the error that prevented one.
type stressResult struct {
	a   stressAnswer
	err error
}

// do sends a request as tenant t (by key, or by session when session is
// set) and decodes the response. It never fails the test itself: writers
// run on their own goroutines.
func (e *stressEnv) do(t int, session bool, method, path string, body any, header ...string) stressResult {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return stressResult{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, e.srv.URL+strings.TrimPrefix(path, "/api"), rd)
	if err != nil {
		return stressResult{err: err}
	}
	if session {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: e.tenants[t].Session})
	} else {
		req.Header.Set("Authorization", "Bearer "+e.tenants[t].APIKey)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := e.hc.Do(req)
	if err != nil {
		return stressResult{err: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return stressResult{err: err}
	}
	a := stressAnswer{status: resp.StatusCode, raw: string(raw)}
	if err := json.Unmarshal(raw, &a.body); err != nil {
		return stressResult{a, fmt.Errorf("%s %s: answer %d is not a JSON object: %s", method, path, a.status, raw)}
	}
	return stressResult{a: a}
}

// expect turns a response outside the wanted statuses into an error.
func expect(r stressResult, want ...int) (stressAnswer, error) {
	if r.err != nil {
		return r.a, r.err
	}
	if !slices.Contains(want, r.a.status) {
		return r.a, fmt.Errorf("answer %d, want %v: %s", r.a.status, want, r.a.raw)
	}
	return r.a, nil
}

// stressLog records what the writers did, for the checks afterwards.
type stressLog struct {
	mu            sync.Mutex
	agents        [2][]string
	agentMeta     [2]map[string]float64 // metadata key -> last value written
	calls         [2][]string
	dupCalls      [][2]string           // ids returned to two concurrent creates with one key
	leadUpdates   map[string][]leadSeen // lead -> every successful update's response
	texts         [2][]string
	smsPrompts    [2][]string
	hooks         [2][]string
	deletedHooks  map[string]bool
	keys          [2][]string
	revokedKeys   map[string]bool
	profileChain  map[string]string // expectedRevision -> new revision, for every accepted update
	profileStale  int
	offers        []string
	offerChain    map[string]map[string]string // offer -> expected -> new
	otherOutcomes map[string]int
	// created[route] are the ids each tenant created on a create route
	// with a list (products, knowledge, runs, approval requests);
	// removed[id] marks those a delete got 200 for.
	created   map[string]*[2][]string
	removed   map[string]bool
	governed  [2][]string       // queued governed updates
	decisions map[string]string // governed update -> the decision accepted
	sdrMax    [2][]float64      // max_touches values written
	personas  [2][]string       // first messages loaded
}

type leadSeen struct {
	updatedAt string
	notes     string
}

func (l *stressLog) With(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fn()
}

// stressWriter performs one write as goroutine g's i-th operation on
// tenant t.
type stressWriter func(e *stressEnv, l *stressLog, g, i, t int) error

// stressWriters covers every write route (method and path as the route
// table has them).
var stressWriters = map[string]stressWriter{
	"POST /api/v1/agents": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/agents", map[string]any{
			"business_id": e.tenants[t].BusinessID, "name": fmt.Sprintf("Agent g%d i%d", g, i), "system_prompt": "Help.",
		}), http.StatusCreated)
		if err == nil {
			l.With(func() { l.agents[t] = append(l.agents[t], a.str("id")) })
		}
		return err
	},
	"PATCH /api/v1/agents": func(e *stressEnv, l *stressLog, g, i, t int) error {
		key := fmt.Sprintf("g%d", g)
		_, err := expect(e.do(t, false, http.MethodPatch, "/api/v1/agents", map[string]any{
			"id": e.sharedAgent[t], "metadata": map[string]any{key: i},
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.agentMeta[t][key] = float64(i) })
		}
		return err
	},
	"POST /api/v1/calls": func(e *stressEnv, l *stressLog, g, i, t int) error {
		body := map[string]any{"agent_id": e.tenants[t].AgentID, "to": fmt.Sprintf("+1555%03d%04d", 600+g, i)}
		if i%3 != 0 {
			a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/calls", body), http.StatusCreated)
			if err == nil {
				l.With(func() { l.calls[t] = append(l.calls[t], a.str("id")) })
			}
			return err
		}
		// Two creates with one Idempotency-Key at once: one call.
		key := fmt.Sprintf("stress-%d-%d", g, i)
		var wg sync.WaitGroup
		var ids [2]string
		var errs [2]error
		for k := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/calls", body, "Idempotency-Key", key), http.StatusCreated)
				ids[k], errs[k] = a.str("id"), err
			}()
		}
		wg.Wait()
		if err := errorsJoin(errs[:]...); err != nil {
			return err
		}
		l.With(func() {
			l.calls[t] = append(l.calls[t], ids[0])
			l.dupCalls = append(l.dupCalls, ids)
		})
		return nil
	},
	"PATCH /api/v1/leads": func(e *stressEnv, l *stressLog, g, i, t int) error {
		id := e.leads[t][g%len(e.leads[t])] // each lead updated by several goroutines at once
		notes := fmt.Sprintf("g%d i%d", g, i)
		a, err := expect(e.do(t, false, http.MethodPatch, "/api/v1/leads", map[string]any{
			"id": id, "notes": notes, "status": []string{"new", "contacted", "qualified"}[i%3],
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.leadUpdates[id] = append(l.leadUpdates[id], leadSeen{a.str("updated_at"), notes}) })
		}
		return err
	},
	"POST /api/v1/sms/send": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/sms/send", map[string]any{
			"from_agent_id": e.tenants[t].AgentID, "to": e.textTo[t][g%len(e.textTo[t])], "message": fmt.Sprintf("g%d i%d", g, i),
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.texts[t] = append(l.texts[t], a.str("id")) })
		}
		return err
	},
	"POST /api/v1/sms/update-prompt": func(e *stressEnv, l *stressLog, g, i, t int) error {
		prompt := fmt.Sprintf("SMS prompt g%d i%d", g, i)
		_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/sms/update-prompt", map[string]any{
			"agent_id": e.sharedAgent[t], "sms_prompt": prompt,
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.smsPrompts[t] = append(l.smsPrompts[t], prompt) })
		}
		return err
	},
	"POST /api/v1/webhooks": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/webhooks", map[string]any{
			"business_id": e.tenants[t].BusinessID, "webhook_url": e.receiver, "events": []string{"sms.sent"},
			"custom_headers": map[string]any{"X-Stress": fmt.Sprintf("g%d", g)},
		}), http.StatusOK, http.StatusCreated)
		if err == nil {
			l.With(func() { l.hooks[t] = append(l.hooks[t], a.str("id")) })
		}
		return err
	},
	"POST /api/v1/webhooks/rotate-secret": func(e *stressEnv, l *stressLog, g, i, t int) error {
		id := e.anyHook(l, t)
		if id == "" {
			return nil
		}
		_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/webhooks/rotate-secret", map[string]any{"id": id}),
			http.StatusOK, http.StatusNotFound) // deleted meanwhile
		return err
	},
	"DELETE /api/v1/webhooks": func(e *stressEnv, l *stressLog, g, i, t int) error {
		if i%2 == 0 {
			return nil // keep some
		}
		id := e.anyHook(l, t)
		if id == "" {
			return nil
		}
		a, err := expect(e.do(t, false, http.MethodDelete, "/api/v1/webhooks?id="+id, nil), http.StatusOK, http.StatusNotFound)
		if err == nil && a.status == http.StatusOK {
			l.With(func() { l.deletedHooks[id] = true })
		}
		return err
	},
	"POST /api/v1/events/replay": func(e *stressEnv, l *stressLog, g, i, t int) error {
		_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/events/replay", map[string]any{
			"since": e.srv.Now().Add(-time.Minute), "types": []string{"sms.sent"},
		}), http.StatusOK)
		return err
	},
	"POST /api/v1/keys": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, true, http.MethodPost, "/api/v1/keys", map[string]any{
			"name": fmt.Sprintf("g%d i%d", g, i), "scopes": []string{"calls:read"},
		}), http.StatusCreated)
		if err == nil {
			l.With(func() { l.keys[t] = append(l.keys[t], a.str("id")) })
		}
		return err
	},
	"DELETE /api/v1/keys": func(e *stressEnv, l *stressLog, g, i, t int) error {
		var id string
		l.With(func() {
			if n := len(l.keys[t]); n > 0 && i%2 == 1 {
				id = l.keys[t][(g*7+i)%n]
			}
		})
		if id == "" {
			return nil
		}
		_, err := expect(e.do(t, true, http.MethodDelete, "/api/v1/keys?id="+id, nil), http.StatusOK)
		if err == nil {
			l.With(func() { l.revokedKeys[id] = true })
		}
		return err
	},
	"POST /api/v1/signup": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/signup", map[string]any{
			"business_name": "Stress", "email": fmt.Sprintf("stress-g%d-i%d@example.com", g, i),
		}), http.StatusOK)
		if err == nil && a.str("challenge_id") == "" {
			err = fmt.Errorf("signup answered no challenge: %s", a.raw)
		}
		return err
	},
	"POST /api/v1/agency-profile": func(e *stressEnv, l *stressLog, g, i, t int) error {
		// Optimistic concurrency: read the revision, update with it. Of
		// concurrent updates from one revision exactly one may win.
		cur, err := expect(e.do(0, false, http.MethodGet, "/api/v1/agency-profile?partnerId="+e.partner, nil), http.StatusOK)
		if err != nil {
			return err
		}
		expected := cur.str("profile", "revision")
		a, err := expect(e.do(0, false, http.MethodPost, "/api/v1/agency-profile", map[string]any{
			"action": "update", "partnerId": e.partner, "expectedRevision": expected, "commercialMode": "commission",
			"brand":   map[string]any{"name": fmt.Sprintf("Agency g%d i%d", g, i)},
			"support": map[string]any{"email": "help@agency.example", "ownerName": "Ann", "coverage": "Weekdays"},
		}), http.StatusOK, http.StatusConflict)
		if err != nil {
			return err
		}
		l.With(func() {
			if a.status == http.StatusConflict {
				l.profileStale++
				return
			}
			if prev, dup := l.profileChain[expected]; dup {
				l.otherOutcomes["profile: two updates from revision "+expected+" won ("+prev+", "+a.str("profile", "revision")+")"]++
			}
			l.profileChain[expected] = a.str("profile", "revision")
		})
		return nil
	},
	"POST /api/v1/agency-offers": func(e *stressEnv, l *stressLog, g, i, t int) error {
		draft := map[string]any{
			"name": fmt.Sprintf("Offer g%d i%d", g, i), "industry": "home_services", "commercialMode": "commission",
			"retail":          map[string]any{"monthlyCents": 49900, "currency": "USD", "scope": "Intake", "collection": "agency_external"},
			"packages":        []any{map[string]any{"key": "convert", "version": "1", "variant": "standard"}},
			"supportedClaims": []string{"approved_intake_setup"}, "supportPolicy": "Email.", "brandingLimitationsAcknowledged": true,
		}
		var offer, expected string
		l.With(func() {
			if n := len(l.offers); n > 0 && i%2 == 1 {
				offer = l.offers[(g+i)%n]
			}
		})
		body := map[string]any{"action": "save", "partnerId": e.partner, "draft": draft}
		if offer != "" {
			cur, err := expect(e.do(0, false, http.MethodGet, "/api/v1/agency-offers?partnerId="+e.partner+"&id="+offer, nil), http.StatusOK)
			if err != nil {
				return err
			}
			expected = cur.str("revision")
			body["offerId"], body["expectedRevision"] = offer, expected
		}
		a, err := expect(e.do(0, false, http.MethodPost, "/api/v1/agency-offers", body), http.StatusOK, http.StatusConflict)
		if err != nil || a.status == http.StatusConflict {
			return err
		}
		l.With(func() {
			id := a.str("offer", "offerId")
			if offer == "" {
				l.offers = append(l.offers, id)
				return
			}
			if l.offerChain[offer] == nil {
				l.offerChain[offer] = map[string]string{}
			}
			if _, dup := l.offerChain[offer][expected]; dup {
				l.otherOutcomes["offer "+offer+": two saves from one revision won"]++
			}
			l.offerChain[offer][expected] = a.str("offer", "revision")
		})
		return nil
	},
	// Enrollment and installation commands need a published offer, approved
	// owners and installations; under stress they run against sessions and
	// installations that do not exist: validation, membership and lookups
	// under the lock, got 404.
	"POST /api/v1/agency-enrollments": func(e *stressEnv, l *stressLog, g, i, t int) error {
		_, err := expect(e.do(0, false, http.MethodPost, "/api/v1/agency-enrollments", map[string]any{
			"action": "revoke", "partnerId": e.partner, "sessionId": e.srv.platform.IDs.UUID(),
		}), http.StatusNotFound)
		return err
	},
	"POST /api/v1/agency-installations": func(e *stressEnv, l *stressLog, g, i, t int) error {
		_, err := expect(e.do(0, false, http.MethodPost, "/api/v1/agency-installations", map[string]any{
			"action": "preview_route_receipt", "partnerId": e.partner, "installationId": e.srv.platform.IDs.UUID(),
			"expectedRevision": strings.Repeat("ab", 32),
		}), http.StatusNotFound)
		return err
	},
	"PUT /api/sdr/config": func(e *stressEnv, l *stressLog, g, i, t int) error {
		maxTouches := 1 + (g+i)%50
		_, err := expect(e.do(t, false, http.MethodPut, "/api/sdr/config", map[string]any{
			"businessId": e.tenants[t].BusinessID, "enabled": true, "max_touches": maxTouches,
			"auto_call": false, "auto_email": false, "auto_sms": false,
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.sdrMax[t] = append(l.sdrMax[t], float64(maxTouches)) })
		}
		return err
	},
	"POST /api/sdr/action": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/sdr/action", map[string]any{
			"businessId": e.tenants[t].BusinessID, "leadId": e.leads[t][(g+i)%len(e.leads[t])],
			"action": []string{"pause", "resume", "skip"}[i%3],
		}), http.StatusOK)
		if err == nil && len(a.body) == 0 {
			err = fmt.Errorf("SDR action answered nothing: %s", a.raw)
		}
		return err
	},
	// Runs and the scheduled runner dispatch nothing (the automatic
	// channels are off): the call and text invariants check that too.
	"POST /api/sdr/run": func(e *stressEnv, l *stressLog, g, i, t int) error {
		_, err := expect(e.do(t, false, http.MethodPost, "/api/sdr/run", map[string]any{
			"businessId": e.tenants[t].BusinessID, "dryRun": i%2 == 0,
		}), http.StatusOK)
		return err
	},
	"POST /api/sdr/cron": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/sdr/cron", nil, sdr.HeaderCronSecret, e.cronSecret), http.StatusOK)
		if _, ok := a.body["runs"].([]any); err == nil && !ok {
			err = fmt.Errorf("cron answered no runs: %s", a.raw)
		}
		return err
	},
	"POST /api/v1/products": func(e *stressEnv, l *stressLog, g, i, t int) error {
		const route = "POST /api/v1/products"
		if id := l.pickCreated(route, t, g*3+i); id != "" && i%3 == 1 {
			// An update of a record perhaps deleted meanwhile.
			_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/products", map[string]any{"id": id, "quantity": i}),
				http.StatusOK, http.StatusNotFound)
			return err
		}
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/products", map[string]any{
			"business_id": e.tenants[t].BusinessID, "name": fmt.Sprintf("Product g%d i%d", g, i), "price": i,
		}), http.StatusCreated)
		if err == nil {
			l.createdOne(route, t, a.str("id"))
		}
		return err
	},
	"DELETE /api/v1/products": func(e *stressEnv, l *stressLog, g, i, t int) error {
		return e.deleteCreated(l, "POST /api/v1/products", "/api/v1/products", g, i, t)
	},
	"POST /api/v1/knowledge": func(e *stressEnv, l *stressLog, g, i, t int) error {
		const route = "POST /api/v1/knowledge"
		if id := l.pickCreated(route, t, g*3+i); id != "" && i%3 == 1 {
			_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/knowledge", map[string]any{
				"id": id, "business_id": e.tenants[t].BusinessID, "tags": []string{fmt.Sprintf("g%d", g)},
			}), http.StatusOK, http.StatusNotFound)
			return err
		}
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/knowledge", map[string]any{
			"business_id": e.tenants[t].BusinessID, "title": fmt.Sprintf("Entry g%d i%d", g, i),
			"content": "We open at nine.", "content_type": "text",
		}), http.StatusCreated)
		if err == nil {
			l.createdOne(route, t, a.str("id"))
		}
		return err
	},
	"DELETE /api/v1/knowledge": func(e *stressEnv, l *stressLog, g, i, t int) error {
		return e.deleteCreated(l, "POST /api/v1/knowledge", "/api/v1/knowledge", g, i, t)
	},
	"POST /api/v1/communication-runs/validate": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/communication-runs/validate", e.stressRun(g, i, t)), http.StatusOK)
		if valid, _ := a.body["valid"].(bool); err == nil && !valid {
			err = fmt.Errorf("a valid run is not valid: %s", a.raw)
		}
		return err
	},
	"POST /api/v1/communication-runs/preview": func(e *stressEnv, l *stressLog, g, i, t int) error {
		_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/communication-runs/preview", e.stressRun(g, i, t)), http.StatusOK)
		return err
	},
	"POST /api/v1/communication-runs": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/communication-runs", e.stressRun(g, i, t),
			"Idempotency-Key", fmt.Sprintf("run-%d-%d", g, i)), http.StatusCreated)
		if err == nil {
			l.createdOne("POST /api/v1/communication-runs", t, a.str("id"))
		}
		return err
	},
	"DELETE /api/v1/communication-runs": func(e *stressEnv, l *stressLog, g, i, t int) error {
		return e.deleteCreated(l, "POST /api/v1/communication-runs", "/api/v1/communication-runs", g, i, t)
	},
	"POST /api/v1/governed-updates": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/governed-updates", map[string]any{
			"intent": "agent.patch", "target": map[string]any{"agent_id": e.sharedAgent[t]},
			"payload": map[string]any{"name": fmt.Sprintf("Shared g%d i%d", g, i)}, "idempotency_key": fmt.Sprintf("gov-%d-%d", g, i),
			"queue_for_approval": true,
		}), http.StatusAccepted)
		if err == nil {
			l.With(func() { l.governed[t] = append(l.governed[t], a.str("id")) })
		}
		return err
	},
	// Decisions race on the queued updates: each is decided once (200),
	// later decisions of it are 409.
	"POST /api/v1/governed-updates/decide": func(e *stressEnv, l *stressLog, g, i, t int) error {
		var id string
		l.With(func() {
			if n := len(l.governed[t]); n > 0 {
				id = l.governed[t][(g+i)%n]
			}
		})
		if id == "" {
			return nil
		}
		decision := []string{"approve", "reject"}[g%2]
		a, err := expect(e.do(t, true, http.MethodPost, "/api/v1/governed-updates/decide", map[string]any{"id": id, "decision": decision}),
			http.StatusOK, http.StatusConflict)
		if err == nil && a.status == http.StatusOK {
			l.With(func() {
				if prev, dup := l.decisions[id]; dup {
					l.otherOutcomes["governed update decided twice ("+prev+", "+decision+")"]++
				}
				l.decisions[id] = decision
			})
		}
		return err
	},
	"POST /api/v1/approval-requests": func(e *stressEnv, l *stressLog, g, i, t int) error {
		a, err := expect(e.do(t, false, http.MethodPost, "/api/v1/approval-requests", map[string]any{
			"source": "stress", "source_request_id": fmt.Sprintf("g%d i%d", g, i), "principal_id": "p1",
			"channel": map[string]any{"type": "voice", "address": fmt.Sprintf("+1555%03d%04d", 700+g, i)},
			"summary": "Refund?", "risk_level": "low", "expires_at": "2030-01-01T00:00:00Z", "callback_url": e.receiver,
		}), http.StatusCreated)
		if err == nil {
			l.createdOne("POST /api/v1/approval-requests", t, a.str("id"))
			// The approval call is one of the tenant's calls.
			l.With(func() { l.calls[t] = append(l.calls[t], a.str("call_id")) })
		}
		return err
	},
	"POST /api/v1/agents/persona": func(e *stressEnv, l *stressLog, g, i, t int) error {
		first := fmt.Sprintf("Persona g%d i%d speaking.", g, i)
		_, err := expect(e.do(t, false, http.MethodPost, "/api/v1/agents/persona", map[string]any{
			"agent_id": e.sharedAgent[t], "persona": map[string]any{"lead_name": "Pat", "scenario": "Wants a quote."},
			"first_message": first,
		}), http.StatusOK)
		if err == nil {
			l.With(func() { l.personas[t] = append(l.personas[t], first) })
		}
		return err
	},
}

// stressLists are the create routes whose records a walk of their list
// must find exactly (minus those deleted): route -> list path and key.
var stressLists = map[string][2]string{
	"POST /api/v1/products":           {"/api/v1/products", "products"},
	"POST /api/v1/knowledge":          {"/api/v1/knowledge", "knowledge"},
	"POST /api/v1/communication-runs": {"/api/v1/communication-runs", "communication_runs"},
	"POST /api/v1/approval-requests":  {"/api/v1/approval-requests", "approval_requests"},
}

// createdOne records an id tenant t created on route.
func (l *stressLog) createdOne(route string, t int, id string) {
	l.With(func() { l.created[route][t] = append(l.created[route][t], id) })
}

// pickCreated is one of tenant t's ids created on route (spread by k), or
// "" when there is none yet.
func (l *stressLog) pickCreated(route string, t, k int) string {
	var id string
	l.With(func() {
		if ids := l.created[route][t]; len(ids) > 0 {
			id = ids[k%len(ids)]
		}
	})
	return id
}

// deleteCreated deletes one of tenant t's records created on route with
// DELETE path?id= (every other operation, to keep some): 200, or 404 when
// another goroutine deleted it first.
func (e *stressEnv) deleteCreated(l *stressLog, route, path string, g, i, t int) error {
	if i%2 == 0 {
		return nil
	}
	id := l.pickCreated(route, t, g+i)
	if id == "" {
		return nil
	}
	a, err := expect(e.do(t, false, http.MethodDelete, path+"?id="+id, nil), http.StatusOK, http.StatusNotFound)
	if err == nil && a.status == http.StatusOK {
		l.With(func() {
			if l.removed[id] {
				l.otherOutcomes[route+": two deletes of one record answered 200"]++
			}
			l.removed[id] = true
		})
	}
	return err
}

// stressRun is a communication run body of tenant t: one text, due long
// after the test ends.
func (e *stressEnv) stressRun(g, i, t int) map[string]any {
	return map[string]any{
		"business_id": e.tenants[t].BusinessID, "external_ref": fmt.Sprintf("g%d i%d", g, i),
		"touches": []any{map[string]any{
			"touch_id": "t1", "channel": "sms", "message": "Hi", "target": map[string]any{"phone": e.textTo[t][g%len(e.textTo[t])]},
			"scheduled_at": "2030-01-01T00:00:00Z",
		}},
	}
}

func (e *stressEnv) anyHook(l *stressLog, t int) string {
	var id string
	l.With(func() {
		if n := len(l.hooks[t]); n > 0 {
			id = l.hooks[t][n-1]
		}
	})
	return id
}

func errorsJoin(errs ...error) error {
	var msgs []string
	for _, err := range errs {
		if err != nil {
			msgs = append(msgs, err.Error())
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(msgs, "; "))
}

// writeRoutes are the API's write routes: every method but GET, admin
// routes left out.
func writeRoutes(s *Server) []string {
	var out []string
	for path, methods := range s.httpapi.Routes {
		for method, rt := range methods {
			if method != http.MethodGet && rt.Auth != httpapi.AuthAdmin && !strings.HasPrefix(path, httpapi.AdminPrefix) {
				out = append(out, method+" "+path)
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestStressEveryWriteRouteConcurrently(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the stress test runs in the full suite (go test ./...)")
	}
	t.Parallel()
	receiver := newReceiver(t)
	srv := Start(t, WithRateLimits(false), WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))

	// Every write route has a writer, and every writer a route.
	routes := writeRoutes(srv.Server)
	for _, r := range routes {
		assert.Contains(t, stressWriters, r, "write route %s has no writer in stressWriters: add one", r)
	}
	for r := range stressWriters {
		assert.Contains(t, routes, r, "stressWriters has %s, which is not a route", r)
	}
	if t.Failed() {
		return
	}

	e := &stressEnv{srv: srv, receiver: receiver, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: stressGoroutines * 2}}}
	t.Cleanup(e.hc.CloseIdleConnections)
	for tn := range e.tenants {
		acct, err := srv.NewAccount(AccountOptions{BusinessName: fmt.Sprintf("Tenant %d", tn)})
		require.NoError(t, err)
		e.tenants[tn] = acct
		for k := range 8 {
			in, err := srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: fmt.Sprintf("+1555%03d%04d", 500+tn, k), Body: "Hi, I need a quote"})
			require.NoError(t, err)
			e.leads[tn] = append(e.leads[tn], in.LeadID)
			to := fmt.Sprintf("+1555%03d%04d", 510+tn, k)
			require.NoError(t, srv.SetConsent(acct.BusinessID, to, ConsentOptedIn))
			e.textTo[tn] = append(e.textTo[tn], to)
		}
		a, err := expect(e.do(tn, false, http.MethodPost, "/api/v1/agents", map[string]any{
			"business_id": acct.BusinessID, "name": "Shared", "system_prompt": "Help."}), http.StatusCreated)
		require.NoError(t, err)
		e.sharedAgent[tn] = a.str("id")
	}
	boot, err := expect(e.do(0, false, http.MethodPost, "/api/v1/agency-profile", map[string]any{
		"action":  "bootstrap",
		"brand":   map[string]any{"name": "Agency"},
		"support": map[string]any{"email": "help@agency.example", "ownerName": "Ann", "coverage": "Weekdays"},
	}), http.StatusOK)
	require.NoError(t, err)
	e.partner, e.profileRev = boot.str("profile", "partnerId"), boot.str("profile", "revision")
	e.cronSecret = srv.SDRCronSecret()
	for tn := range e.tenants {
		// SDR on from the start (a run of a business without it is 400),
		// dispatching nothing by itself.
		_, err := expect(e.do(tn, false, http.MethodPut, "/api/sdr/config", map[string]any{
			"businessId": e.tenants[tn].BusinessID, "enabled": true, "max_touches": 1,
			"auto_call": false, "auto_email": false, "auto_sms": false,
		}), http.StatusOK)
		require.NoError(t, err)
	}

	l := &stressLog{
		agentMeta: [2]map[string]float64{{}, {}}, leadUpdates: map[string][]leadSeen{}, deletedHooks: map[string]bool{},
		revokedKeys: map[string]bool{}, profileChain: map[string]string{}, offerChain: map[string]map[string]string{},
		otherOutcomes: map[string]int{}, created: map[string]*[2][]string{}, removed: map[string]bool{},
		decisions: map[string]string{}, sdrMax: [2][]float64{{1}, {1}},
	}
	for route := range stressLists {
		l.created[route] = &[2][]string{}
	}

	// A reader walks the calls of tenant 0 while they are created.
	stop := make(chan struct{})
	readerDone := make(chan []string)
	go func() { readerDone <- walkWhileWriting(e, stop) }()

	var wg sync.WaitGroup
	errs := make(chan error, stressGoroutines*len(routes))
	for g := range stressGoroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range len(routes) {
				r := routes[(g+i)%len(routes)]
				if err := stressWriters[r](e, l, g, i, g%2); err != nil { // a route runs on both tenants at once
					errs <- fmt.Errorf("goroutine %d, %s: %w", g, r, err)
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	for _, problem := range <-readerDone {
		t.Error("walk during writes:", problem)
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for what, n := range l.otherOutcomes {
		t.Errorf("%s (%d times)", what, n)
	}
	checkStressInvariants(t, e, l)
}

// walkWhileWriting walks tenant 0's calls by pages of 7 until stop, and
// reports any walk that repeats an id or does not go strictly back in time.
func walkWhileWriting(e *stressEnv, stop <-chan struct{}) []string {
	var problems []string
	for walks := 0; ; walks++ {
		select {
		case <-stop:
			if walks == 0 {
				problems = append(problems, "no walk finished")
			}
			return problems
		default:
		}
		if _, err := walkPages(e, 0, "/api/v1/calls", "calls", 7); err != nil {
			problems = append(problems, err.Error())
		}
	}
}

// walkPages reads every page of a list as tenant t and returns the ids,
// newest first; an id seen twice, a created_at not strictly older than the
// one before, or a failed read is an error.
func walkPages(e *stressEnv, t int, path, key string, limit int) ([]string, error) {
	var ids []string
	seen := map[string]bool{}
	var last time.Time
	after := ""
	base, rawQuery, _ := strings.Cut(path, "?")
	for {
		q, _ := url.ParseQuery(rawQuery)
		q.Set("limit", fmt.Sprint(limit))
		if after != "" {
			q.Set("after", after)
		}
		a, err := expect(e.do(t, false, http.MethodGet, base+"?"+q.Encode(), nil), http.StatusOK)
		if err != nil {
			return ids, err
		}
		items, _ := a.body[key].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			id, _ := m["id"].(string)
			created, _ := m["created_at"].(string)
			at, err := time.Parse(time.RFC3339Nano, created)
			if err != nil {
				return ids, fmt.Errorf("%s: bad created_at %q", path, created)
			}
			if seen[id] {
				return ids, fmt.Errorf("%s: %s seen twice in one walk", path, id)
			}
			if !last.IsZero() && !at.Before(last) {
				return ids, fmt.Errorf("%s: %s created at %s, not before %s", path, id, at, last)
			}
			seen[id], last, after = true, at, created
			ids = append(ids, id)
		}
		if more, _ := a.body["has_more"].(bool); !more {
			return ids, nil
		}
	}
}

func checkStressInvariants(t *testing.T, e *stressEnv, l *stressLog) {
	// No request got a server error.
	for _, j := range e.srv.Requests(func(j *JournalEntry) bool { return j.Status >= 500 }) {
		t.Errorf("%s %s answered %d", j.Method, j.Path, j.Status)
	}
	for tn := range e.tenants {
		// Calls: a walk finds exactly those created, once each; two creates
		// with one key made one call.
		calls, err := walkPages(e, tn, "/api/v1/calls", "calls", 9)
		require.NoError(t, err)
		assert.ElementsMatch(t, l.calls[tn], calls, "tenant %d: the calls created, each once", tn)

		// Agents: the intake agent, the shared one and those created.
		agents, err := expect(e.do(tn, false, http.MethodGet, "/api/v1/agents", nil), http.StatusOK)
		require.NoError(t, err)
		var agentIDs []string
		for _, it := range agents.body["agents"].([]any) {
			agentIDs = append(agentIDs, it.(map[string]any)["id"].(string))
		}
		assert.ElementsMatch(t, append([]string{e.tenants[tn].AgentID, e.sharedAgent[tn]}, l.agents[tn]...), agentIDs)

		// Concurrent metadata merges lost nothing: each goroutine's key holds
		shared, err := expect(e.do(tn, false, http.MethodGet, "/api/v1/agents?id="+e.sharedAgent[tn], nil), http.StatusOK)
		require.NoError(t, err)
		// its last write. A loaded persona keeps itself under "persona".
		meta, _ := shared.body["metadata"].(map[string]any)
		assert.NotNil(t, meta["persona"], "tenant %d: the loaded persona is in the metadata", tn)
		delete(meta, "persona")
		assert.Equal(t, l.agentMeta[tn], toFloats(meta), "tenant %d: metadata merges", tn)
		prompts := shared.body["prompts"].(map[string]any)["sms"].(map[string]any)["prompt"]
		assert.Contains(t, l.smsPrompts[tn], prompts, "the SMS prompt is one that was written")

		// Texts: each sent once.
		texts, err := walkPages(e, tn, "/api/v1/sms/messages?direction=outbound", "messages", 11)
		require.NoError(t, err)
		assert.ElementsMatch(t, l.texts[tn], texts, "tenant %d: one outbound text per send", tn)

		// Subscriptions: created minus deleted.
		hooks, err := walkPages(e, tn, "/api/v1/webhooks", "webhooks", 5)
		require.NoError(t, err)
		var kept []string
		for _, id := range l.hooks[tn] {
			if !l.deletedHooks[id] {
				kept = append(kept, id)
			}
		}
		assert.ElementsMatch(t, kept, hooks, "tenant %d: subscriptions", tn)

		// Keys: the account's and those created; revoked ones inactive.
		keys, err := expect(e.do(tn, true, http.MethodGet, "/api/v1/keys", nil), http.StatusOK)
		require.NoError(t, err)
		var keyIDs []string
		for _, it := range keys.body["keys"].([]any) {
			k := it.(map[string]any)
			keyIDs = append(keyIDs, k["id"].(string))
			assert.Equal(t, !l.revokedKeys[k["id"].(string)], k["is_active"], "key %s", k["id"])
		}
		assert.Len(t, keyIDs, len(l.keys[tn])+1, "tenant %d: keys", tn)
		assert.Subset(t, keyIDs, l.keys[tn])

		// Products, knowledge, runs, approval requests: created minus
		// deleted, each once.
		for route, list := range stressLists {
			got, err := walkPages(e, tn, list[0], list[1], 13)
			require.NoError(t, err, route)
			want := slices.DeleteFunc(slices.Clone(l.created[route][tn]), func(id string) bool { return l.removed[id] })
			assert.ElementsMatch(t, want, got, "tenant %d: %s created minus deleted", tn, route)
			assert.NotEmpty(t, l.created[route][tn], "tenant %d: %s created some", tn, route)
		}

		// Governed updates: each decided once shows that decision; the
		// others are still pending.
		for _, id := range l.governed[tn] {
			g, err := expect(e.do(tn, false, http.MethodGet, "/api/v1/governed-updates?id="+id, nil), http.StatusOK)
			require.NoError(t, err)
			want := map[string]string{"": "pending_approval", "approve": "applied", "reject": "rejected"}[l.decisions[id]]
			assert.Equal(t, want, g.str("status"), "governed update %s", id)
		}
		assert.NotEmpty(t, l.decisions, "some governed updates were decided")

		// SDR configuration and persona: the last write is one written.
		cfg, err := expect(e.do(tn, false, http.MethodGet, "/api/sdr/config?businessId="+e.tenants[tn].BusinessID, nil), http.StatusOK)
		require.NoError(t, err)
		assert.Contains(t, l.sdrMax[tn], cfg.body["max_touches"], "tenant %d: max_touches", tn)
		assert.Contains(t, l.personas[tn], shared.str("first_message"), "tenant %d: the persona's first message", tn)
	}
	for _, ids := range l.dupCalls {
		assert.Equal(t, ids[0], ids[1], "two creates with one Idempotency-Key answered one call")
	}

	// Leads: every successful update got its own updated_at (strictly
	// increasing in the order the lock ran them), and the lead shows the
	// last one.
	for id, seen := range l.leadUpdates {
		times := map[string]bool{}
		var latest leadSeen
		for _, s := range seen {
			assert.False(t, times[s.updatedAt], "lead %s: two updates answered updated_at %s", id, s.updatedAt)
			times[s.updatedAt] = true
			if latest.updatedAt == "" || mustTime(t, s.updatedAt).After(mustTime(t, latest.updatedAt)) {
				latest = s
			}
		}
		tn := 0
		if slices.Contains(e.leads[1], id) {
			tn = 1
		}
		cur, err := expect(e.do(tn, false, http.MethodGet, "/api/v1/leads?id="+id, nil), http.StatusOK)
		require.NoError(t, err)
		got := mustTime(t, cur.str("updated_at"))
		for s := range times {
			assert.False(t, mustTime(t, s).After(got), "lead %s: an update answered a later updated_at than the lead has", id)
		}
		assert.Equal(t, latest.notes, cur.str("notes"), "lead %s shows its last update", id)
	}

	// The agency profile's accepted updates form one chain from the
	// bootstrap revision: one winner per revision, and the profile is at
	// the chain's end.
	rev, steps := e.profileRev, 0
	for next, ok := l.profileChain[rev]; ok; next, ok = l.profileChain[rev] {
		rev, steps = next, steps+1
	}
	assert.Equal(t, len(l.profileChain), steps, "every accepted update continues the chain")
	assert.Positive(t, steps, "some updates won")
	cur, err := expect(e.do(0, false, http.MethodGet, "/api/v1/agency-profile?partnerId="+e.partner, nil), http.StatusOK)
	require.NoError(t, err)
	assert.Equal(t, rev, cur.str("profile", "revision"))
	t.Logf("calls %d+%d (%d created twice at once with one key), lead updates %d, texts %d+%d, agency profile: %d updates accepted, %d refused as stale",
		len(l.calls[0]), len(l.calls[1]), len(l.dupCalls), len(l.leadUpdates), len(l.texts[0]), len(l.texts[1]), steps, l.profileStale)

	// Offers: all created exist; each one's accepted saves chain too.
	tx := e.srv.platform.ReadTx()
	var offers []string
	for _, o := range tx.Offers.Owned(e.partner) {
		offers = append(offers, o.ID)
		chain := l.offerChain[o.ID]
		rev, steps := "", 0
		produced := slices.Collect(maps.Values(chain))
		for exp := range chain {
			if !slices.Contains(produced, exp) {
				rev = exp // the chain's start: a revision no save produced
			}
		}
		for next, ok := chain[rev]; ok; next, ok = chain[rev] {
			rev, steps = next, steps+1
		}
		assert.Equal(t, len(chain), steps, "offer %s: accepted saves form one chain", o.ID)
		if len(chain) > 0 {
			assert.Equal(t, o.Revision, rev, "offer %s is at its chain's end", o.ID)
		}
	}
	tx.End()
	assert.ElementsMatch(t, l.offers, offers)
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err, s)
	return at
}

func toFloats(v any) map[string]float64 {
	out := map[string]float64{}
	m, _ := v.(map[string]any)
	for k, x := range m {
		f, _ := x.(float64)
		out[k] = f
	}
	return out
}

// newReceiver is a loopback webhook receiver that responds 200.
func newReceiver(t *testing.T) string {
	t.Helper()
	rs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(rs.Close)
	return rs.URL + "/hooks"
}
