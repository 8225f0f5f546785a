package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// IsAdminPath reports whether a request path is the admin API's: /_mock
// or anything under it, known route or not.
func IsAdminPath(path string) bool {
	return path == AdminPrefix || strings.HasPrefix(path, AdminPrefix+"/")
}

// adminRealm names the admin API in WWW-Authenticate challenges.
const adminRealm = `realm="voiceagent-mock admin"`

// guardAdmin is the one check of every admin API request, before its route
// is looked up, so that a web page can drive no part of a developer's
// local mock:
//
//   - with an admin token (WithAdminToken, -admin-token), the request must
//     carry it (Authorization: Bearer <token>, or as the password of Basic
//     auth, which a browser asks for): 401 otherwise. A page cannot know
//     the token, so with it any Host name is served;
//   - without one, the Host must be a loopback name (localhost, *.localhost,
//     127.0.0.0/8, ::1) or one of WithAdminHosts: 403 otherwise, which
//     defeats DNS rebinding (a page on evil.example whose name now points to
//     127.0.0.1 still sends Host: evil.example);
//   - a browser's cross-origin request (an Origin other than the request's
//     own, or Sec-Fetch-Site cross-site or same-site) is 403, which defeats
//     cross-site request forgery (a form or a no-cors fetch posting
//     text/plain);
//   - a body, or a Content-Type, must be JSON (application/json or
//     application/*+json): 415 otherwise.
func (s *API) guardAdmin(r *http.Request) *Error {
	if token := s.Config.AdminToken; token != "" {
		if !adminTokenMatches(r, token) {
			e := Unauthorized("the admin API needs the admin token: Authorization: Bearer <token> (the server printed it at start, or it was set with -admin-token)")
			e.Header = http.Header{"Www-Authenticate": {"Bearer " + adminRealm + ", Basic " + adminRealm}}
			return e
		}
	} else if !s.adminHostAllowed(r.Host) {
		return Forbidden("the admin API answers only loopback host names and the hosts it is configured for, not " +
			strconvQuote(r.Host) + " (a page on another site must not reach it through DNS rebinding)")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
		return Forbidden("the admin API refuses cross-origin requests (Origin " + strconvQuote(origin) + ")")
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return Forbidden("the admin API refuses requests a page of another site made (Sec-Fetch-Site: " + site + ")")
	}
	ct := r.Header.Get("Content-Type")
	if (ct != "" || r.ContentLength != 0) && !isJSONMediaType(ct) {
		return NewError(http.StatusUnsupportedMediaType, wire.CodeInvalidRequest,
			"the admin API takes JSON bodies only (Content-Type: application/json), not "+strconvQuote(ct))
	}
	return nil
}

// adminTokenMatches reports whether r carries the admin token, as a bearer
// token or as the password of Basic auth, compared in constant time.
func adminTokenMatches(r *http.Request, token string) bool {
	got := ""
	if _, pass, ok := r.BasicAuth(); ok {
		got = pass
	} else if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		got = strings.TrimSpace(h[7:])
	}
	if got == "" {
		return false
	}
	want, have := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(want[:], have[:]) == 1
}

// adminHostAllowed reports whether the admin API serves a Host header
// value: a loopback name or address, one of the configured hosts, or no
// Host at all (an HTTP/1.0 client; browsers always send one).
func (s *API) adminHostAllowed(hostport string) bool {
	if hostport == "" {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if IsLoopbackHost(host) {
		return true
	}
	for _, allowed := range s.Config.AdminHosts {
		if strings.EqualFold(allowed, host) || strings.EqualFold(allowed, hostport) {
			return true
		}
	}
	return false
}

// IsLoopbackHost reports whether a host name (without port) is a loopback
// name or address: localhost, a name under .localhost (RFC 6761), an
// address of 127.0.0.0/8, or ::1.
func IsLoopbackHost(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a browser's Origin header is the origin of
// the request's own Host (the dashboard the server serves).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed frame, a file) included
	}
	return strings.EqualFold(u.Host, host)
}

// isJSONMediaType reports whether a Content-Type is JSON.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// strconvQuote quotes a header value for a message, cut to 200 bytes.
func strconvQuote(s string) string { return strconv.Quote(Truncate(s, 200)) }
