package identity

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"sync"

	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/openapi"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// Account reads: balance, usage, capabilities and the schema catalog.
func (s *Service) AccountRoutes() []*httpapi.Route {
	return []*httpapi.Route{
		{Method: http.MethodGet, Path: "/api/v1/balance", Scope: httpapi.Scope("billing:read"), Handle: s.getBalance},
		{Method: http.MethodGet, Path: "/api/v1/usage", Scope: httpapi.Scope("billing:read"), Handle: s.listUsage},
		{Method: http.MethodGet, Path: "/api/v1/capabilities", Handle: s.getCapabilities},
		{Method: http.MethodGet, Path: "/api/v1/schemas", Handle: s.getSchemas},
	}
}

func (s *Service) getBalance(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(owners))
	for _, id := range owners {
		b, ok := rc.Store.Businesses.Get(id)
		if !ok {
			continue
		}
		out = append(out, map[string]any{
			"business_id":         b.ID,
			"minutes_used":        rc.Store.MinutesUsed(b.ID),
			"phone_numbers":       rc.Store.Numbers.Count(b.ID),
			"subscription_status": b.SubscriptionStatus,
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
		return nil, httpapi.InvalidField("end", "must be after start")
	}
	var match func(*store.UsageEntry) bool
	if only := rc.Principal.Key.BusinessID; only != "" {
		match = func(e *store.UsageEntry) bool { return e.BusinessID == only }
	}
	items, more := s.httpapi.Usage.Page(rc.Principal.OwnerID(), pq, match)
	return map[string]any{"usage": items, "has_more": more}, nil
}

func (s *Service) getCapabilities(rc *httpapi.Ctx) (any, error) {
	k := rc.Principal.Key
	workspaces := make([]map[string]any, 0, len(rc.Principal.Businesses))
	var only *store.Business
	for _, id := range rc.Principal.Businesses {
		if b, ok := rc.Store.Businesses.Get(id); ok {
			workspaces = append(workspaces, businessView(b))
			only = b
		}
	}
	allowance := map[string]any{
		"rate_limits":          s.rateLimitsView(),
		"rate_limits_enforced": s.httpapi.Limits.On,
		"subscription_status":  nil,
		"trial_ends_at":        nil,
	}
	var workspace any
	if len(workspaces) == 1 {
		workspace = workspaces[0]
		allowance["subscription_status"] = only.SubscriptionStatus
		allowance["trial_ends_at"] = only.TrialEndsAt
	}
	permissions := []string{}
	for _, sc := range wire.AllScopes {
		if rc.Principal.Has(sc) {
			permissions = append(permissions, sc)
		}
	}
	key := map[string]any{
		"id": k.ID, "prefix": k.Prefix, "name": k.Name, "scopes": k.Scopes,
		"business_id": httpapi.Nullable(k.BusinessID), "partner_id": httpapi.Nullable(k.PartnerID),
		"created_at": k.CreatedAt, "expires_at": k.ExpiresAt,
	}
	return map[string]any{
		"workspace": workspace, "workspaces": workspaces, "key": key,
		"permissions": permissions, "allowance": allowance,
	}, nil
}

// rateLimitsView lists the rate limits a key is held to (wire.Limits), as
// the server enforces them (after WithRateLimitScale).
func (s *Service) rateLimitsView() []map[string]any {
	out := make([]map[string]any, 0, len(wire.Limits))
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
		out = append(out, map[string]any{
			"group": r.Name, "method": r.Method, "path": path, "limit": s.limitOf(r),
			"window_seconds": int(r.Window.Seconds()), "per": per,
		})
	}
	return out
}

// limitOf is a limit's count as the server enforces it: scaled by
// WithRateLimitScale and at least 1, as httpapi.RateLimiter counts it.
func (s *Service) limitOf(r *wire.Limit) int {
	scale := s.Config.RateScale
	if scale <= 0 {
		scale = 1
	}
	return max(int(math.Round(float64(r.Max)*scale)), 1)
}

// schemaCatalog is the title and description of every schema of package
// openapi, read once.
var schemaCatalog = sync.OnceValue(func() []map[string]string {
	var out []map[string]string
	for _, name := range openapi.SchemaNames() {
		raw, _ := openapi.Schema(name)
		var head struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		}
		_ = json.Unmarshal(raw, &head)
		out = append(out, map[string]string{
			"name": name, "title": head.Title, "description": head.Description, "id": openapi.SchemaID(name),
		})
	}
	return out
})

func (s *Service) getSchemas(rc *httpapi.Ctx) (any, error) {
	if name := rc.Query("name"); name != "" {
		raw, ok := openapi.Schema(name)
		if !ok {
			return nil, httpapi.NotFound("no schema named " + name + " (GET /v1/schemas lists them)")
		}
		return json.RawMessage(raw), nil
	}
	scheme := "http"
	if rc.Request.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + rc.Request.Host + httpapi.APIPrefix + "/v1/schemas?name="
	out := make([]map[string]string, 0, len(schemaCatalog()))
	for _, c := range schemaCatalog() {
		out = append(out, map[string]string{
			"name": c["name"], "title": c["title"], "description": c["description"],
			"id": c["id"], "url": base + c["name"],
		})
	}
	return map[string]any{"schemas": out}, nil
}
