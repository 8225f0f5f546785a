package identity

import (
	"encoding/json"
	"strings"
	"sync"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// Account reads: balance, usage, capabilities and the schema catalog.

func (s *Service) getBalance(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := make([]account.BalanceEntry, 0, len(owners))
	for _, id := range owners {
		b, ok := rc.Tx.Businesses.Get(id)
		if !ok {
			continue
		}
		out = append(out, account.BalanceEntry{
			BusinessID:         b.ID,
			MinutesUsed:        rc.Tx.MinutesUsed(b.ID),
			PhoneNumbers:       rc.Tx.Numbers.Count(b.ID),
			SubscriptionStatus: b.SubscriptionStatus,
		})
	}
	return map[string]any{"businesses": out}, nil
}

func (s *Service) listUsage(rc *httpapi.Ctx) (any, error) {
	pq, err := rc.PageQuery(100, 500)
	if err != nil {
		return nil, err
	}
	if pq.Since, err = rc.TimeQuery("start"); err != nil {
		return nil, err
	}
	if pq.Until, err = rc.TimeQuery("end"); err != nil {
		return nil, err
	}
	if !pq.Since.IsZero() && !pq.Until.IsZero() && !pq.Until.After(pq.Since) {
		return nil, domain.InvalidField("end", "must be after start")
	}
	var match func(*store.UsageEntry) bool
	if only := rc.Principal.Key.BusinessID; only != "" {
		match = func(e *store.UsageEntry) bool { return e.BusinessID == only }
	}
	return s.httpapi.Usage.Page(rc.Principal.OwnerID(), pq, match), nil
}

func (s *Service) getCapabilities(rc *httpapi.Ctx) (any, error) {
	k := rc.Principal.Key
	out := account.Capabilities{
		Workspaces: make([]account.Workspace, 0, len(rc.Principal.Businesses)),
		Key: account.KeyInfo{
			ID: k.ID, Prefix: k.Prefix, Name: k.Name, Scopes: val.Strings[voiceagent.Scope](k.Scopes),
			BusinessID: val.Strp(k.BusinessID), PartnerID: val.Strp(k.PartnerID),
			CreatedAt: k.CreatedAt, ExpiresAt: k.ExpiresAt,
		},
		Permissions: []voiceagent.Scope{},
		Allowance: account.Allowance{
			RateLimits:         s.rateLimitsView(),
			RateLimitsEnforced: s.httpapi.Limits.On,
		},
	}
	var only *store.Business
	for _, id := range rc.Principal.Businesses {
		if b, ok := rc.Tx.Businesses.Get(id); ok {
			out.Workspaces = append(out.Workspaces, workspaceView(b))
			only = b
		}
	}
	if len(out.Workspaces) == 1 {
		out.Workspace = &out.Workspaces[0]
		status, trialEnds := only.SubscriptionStatus, only.TrialEndsAt
		out.Allowance.SubscriptionStatus, out.Allowance.TrialEndsAt = &status, &trialEnds
	}
	for _, sc := range allScopes {
		if rc.Principal.Has(voiceagent.Scope(sc)) {
			out.Permissions = append(out.Permissions, voiceagent.Scope(sc))
		}
	}
	return out, nil
}

// rateLimitsView lists the rate limits a key is held to (wire.Limits), as
// the server enforces them (after WithRateLimitScale).
func (s *Service) rateLimitsView() []account.RateLimit {
	out := make([]account.RateLimit, 0, len(wire.Limits))
	for i := range wire.Limits {
		r := &wire.Limits[i]
		path := r.Path
		switch {
		case path == "":
			path = "*" // every other GET
		case strings.HasSuffix(path, "/"):
			path += "*"
		}
		per := "key"
		if r.PerIP {
			per = "ip"
		}
		out = append(out, account.RateLimit{
			Group: r.Name, Method: r.Method, Path: path, Limit: s.httpapi.Limits.LimitOf(r),
			WindowSeconds: int(r.Window.Seconds()), Per: per,
		})
	}
	return out
}

// schemaCatalog is the name, title, description and id of every schema of
// package openapi (the catalog without its URLs), read once.
var schemaCatalog = sync.OnceValue(func() []account.SchemaInfo {
	var out []account.SchemaInfo
	for _, name := range openapi.SchemaNames() {
		raw, _ := openapi.Schema(name)
		var head struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(raw, &head)
		out = append(out, account.SchemaInfo{Name: name, Title: head.Title, Description: head.Description, ID: openapi.SchemaID(name)})
	}
	return out
})

func (s *Service) getSchemas(rc *httpapi.Ctx) (any, error) {
	if name := rc.Query("name"); name != "" {
		raw, ok := openapi.Schema(name)
		if !ok {
			return nil, domain.NotFound("no schema named " + name + " (GET /v1/schemas lists them)")
		}
		return json.RawMessage(raw), nil
	}
	scheme := "http"
	if rc.Request.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + rc.Request.Host + httpapi.APIPrefix + "/v1/schemas?name="
	out := make([]account.SchemaInfo, 0, len(schemaCatalog()))
	for _, c := range schemaCatalog() {
		c.URL = base + c.Name
		out = append(out, c)
	}
	return map[string]any{"schemas": out}, nil
}
