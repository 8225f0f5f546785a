package mockserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// Account reads: balance, usage, capabilities and the schema catalog.
func (s *Server) accountRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: "/api/v1/balance", scope: scope("billing:read"), handle: s.getBalance},
		{method: http.MethodGet, path: "/api/v1/usage", scope: scope("billing:read"), handle: s.listUsage},
		{method: http.MethodGet, path: "/api/v1/capabilities", handle: s.getCapabilities},
		{method: http.MethodGet, path: "/api/v1/schemas", handle: s.getSchemas},
	}
}

func (s *Server) getBalance(rc *reqCtx) (any, error) {
	owners, err := rc.scopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(owners))
	for _, id := range owners {
		b, ok := rc.st.Businesses.Get(id)
		if !ok {
			continue
		}
		out = append(out, map[string]any{
			"business_id":         b.ID,
			"minutes_used":        rc.st.MinutesUsed(b.ID),
			"phone_numbers":       rc.st.Numbers.Count(b.ID),
			"subscription_status": b.SubscriptionStatus,
		})
	}
	return map[string]any{"businesses": out}, nil
}

func (s *Server) listUsage(rc *reqCtx) (any, error) {
	pq, err := rc.pageQuery(100, 500)
	if err != nil {
		return nil, err
	}
	if pq.since, err = rc.timeQuery("start"); err != nil {
		return nil, err
	}
	if pq.until, err = rc.timeQuery("end"); err != nil {
		return nil, err
	}
	if !pq.since.IsZero() && !pq.until.IsZero() && !pq.until.After(pq.since) {
		return nil, errInvalidField("end", "must be after start")
	}
	var match func(*store.UsageEntry) bool
	if only := rc.p.key.BusinessID; only != "" {
		match = func(e *store.UsageEntry) bool { return e.BusinessID == only }
	}
	items, more := s.usage.page(rc.p.ownerID(), pq, match)
	return map[string]any{"usage": items, "has_more": more}, nil
}

func (s *Server) getCapabilities(rc *reqCtx) (any, error) {
	k := rc.p.key
	workspaces := make([]map[string]any, 0, len(rc.p.businesses))
	var only *store.Business
	for _, id := range rc.p.businesses {
		if b, ok := rc.st.Businesses.Get(id); ok {
			workspaces = append(workspaces, businessView(b))
			only = b
		}
	}
	allowance := map[string]any{
		"rate_limits":          s.rateLimitsView(),
		"rate_limits_enforced": s.limits.on,
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
	for _, sc := range allScopes {
		if rc.p.has(sc) {
			permissions = append(permissions, sc)
		}
	}
	key := map[string]any{
		"id": k.ID, "prefix": k.Prefix, "name": k.Name, "scopes": k.Scopes,
		"business_id": nullable(k.BusinessID), "partner_id": nullable(k.PartnerID),
		"created_at": k.CreatedAt, "expires_at": k.ExpiresAt,
	}
	return map[string]any{
		"workspace": workspace, "workspaces": workspaces, "key": key,
		"permissions": permissions, "allowance": allowance,
	}, nil
}

// rateLimitsView lists the rate limits a key is held to, as the server
// enforces them (after WithRateLimitScale).
func (s *Server) rateLimitsView() []map[string]any {
	out := make([]map[string]any, 0, len(limitRules))
	for i := range limitRules {
		r := &limitRules[i]
		path := strings.TrimPrefix(r.path, apiPrefix)
		switch {
		case path == "":
			path = "*" // every other GET
		case strings.HasSuffix(path, "/"):
			path += "*"
		}
		per := "key"
		if r.perIP {
			per = "ip"
		}
		out = append(out, map[string]any{
			"group": r.name, "method": r.method, "path": path, "limit": s.limits.limitOf(r),
			"window_seconds": int(r.window.Seconds()), "per": per,
		})
	}
	return out
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

func (s *Server) getSchemas(rc *reqCtx) (any, error) {
	if name := rc.query("name"); name != "" {
		raw, ok := openapi.Schema(name)
		if !ok {
			return nil, errNotFound("no schema named " + name + " (GET /v1/schemas lists them)")
		}
		return json.RawMessage(raw), nil
	}
	scheme := "http"
	if rc.r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://" + rc.r.Host + apiPrefix + "/v1/schemas?name="
	out := make([]map[string]string, 0, len(schemaCatalog()))
	for _, c := range schemaCatalog() {
		out = append(out, map[string]string{
			"name": c["name"], "title": c["title"], "description": c["description"],
			"id": c["id"], "url": base + c["name"],
		})
	}
	return map[string]any{"schemas": out}, nil
}
