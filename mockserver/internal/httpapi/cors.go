package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
)

// CORS: the API under /api serves browsers of the configured origins
// (WithCORS, -cors), so an API explorer (Swagger UI, Scalar) or a web app
// on another origin can call the mock. Never with credentials: keys travel
// in the Authorization header, which needs none; the session cookie stays
// same-origin. The admin API (/_mock) never serves cross-origin.
const (
	// corsMethods are the methods a preflight allows: every method of the API.
	corsMethods = "GET, POST, PUT, PATCH, DELETE"
	// corsMaxAge is how long (seconds) a browser may keep a preflight's response.
	corsMaxAge = "600"
)

// CORSRequestHeaders are the request headers a preflight allows: what the
// SDK and API explorers send (the key, bodies, idempotency keys, the SDK's
// retry count, signup's payment header).
var CORSRequestHeaders = []string{
	"Authorization", "Content-Type", "Idempotency-Key", "X-Voiceagent-Retry-Count", "X-Payment", "Accept",
}

// CORSExposedHeaders are the response headers a browser script may read: the
// request id, the rate limit headers, Retry-After, the idempotent replay
// marker and the retry hint.
var CORSExposedHeaders = []string{
	"X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After",
	HeaderIdempotentReplayed, HeaderShouldRetry,
}

// corsPolicy is the set of origins allowed to call the API.
type corsPolicy struct {
	anyOrigin bool            // "*" was given
	origins   map[string]bool // normalized origins
	allowHdrs string
	exposeHdr string
}

// newCORS returns the policy of origins (already normalized with
// NormalizeOrigin), nil when there are none: CORS is off.
func newCORS(origins []string) *corsPolicy {
	if len(origins) == 0 {
		return nil
	}
	c := &corsPolicy{origins: map[string]bool{}, allowHdrs: strings.Join(CORSRequestHeaders, ", "),
		exposeHdr: strings.Join(CORSExposedHeaders, ", ")}
	for _, o := range origins {
		if o == "*" {
			c.anyOrigin = true
		}
		c.origins[o] = true
	}
	return c
}

// NormalizeOrigin checks an origin as WithCORS takes it and returns it in
// the form browsers send in the Origin header: "*" (any origin), or
// scheme://host[:port] with an http or https scheme, lower case, without
// the scheme's default port and without a path ("https://editor.swagger.io",
// "http://localhost:3000").
func NormalizeOrigin(origin string) (string, error) {
	o := strings.TrimSpace(origin)
	if o == "*" {
		return o, nil
	}
	form := fmt.Errorf("CORS origin %q must be * or scheme://host[:port] (such as https://editor.swagger.io or http://localhost:3000)", origin)
	u, err := url.Parse(o)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", form
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("CORS origin %q must use http or https", origin)
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.ForceQuery {
		return "", fmt.Errorf("CORS origin %q must be only scheme://host[:port], without a path, query or user", origin)
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if port != "" {
		return scheme + "://" + net.JoinHostPort(host, port), nil
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 literal
	}
	return scheme + "://" + host, nil
}

// allowed reports whether a request's Origin may call the API, and the
// value of Access-Control-Allow-Origin to send.
func (c *corsPolicy) allowed(origin string) (string, bool) {
	if c.anyOrigin {
		return "*", true
	}
	n, err := NormalizeOrigin(origin)
	if err != nil || !c.origins[n] {
		return "", false
	}
	return origin, true
}

// apply handles CORS for a request under /api: it responds to a preflight
// (and reports true: the request is done), or adds the CORS headers of an
// allowed origin to the response.
func (c *corsPolicy) apply(w http.ResponseWriter, r *http.Request) (done bool) {
	h := w.Header()
	if !c.anyOrigin {
		h.Add("Vary", "Origin")
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	allow, ok := c.allowed(origin)
	preflight := r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	if !preflight {
		if ok {
			h.Set("Access-Control-Allow-Origin", allow)
			h.Set("Access-Control-Expose-Headers", c.exposeHdr)
		}
		return false
	}
	h.Add("Vary", "Access-Control-Request-Method")
	h.Add("Vary", "Access-Control-Request-Headers")
	if !ok {
		writeResponse(w, ErrorResponse(domain.Forbidden("origin "+origin+" may not call this mock server: start it with -cors "+origin+" (WithCORS)")))
		return true
	}
	h.Set("Access-Control-Allow-Origin", allow)
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", c.allowHdrs)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	w.WriteHeader(http.StatusNoContent)
	return true
}
