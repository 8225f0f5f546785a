// Package dashboard is the mock server's web dashboard at /_mock/ui: one
// HTML page, its script and its style sheet, embedded in the binary (no
// build step) and fetching nothing from outside. The page reads and drives
// the admin API (/_mock) from the browser: tenants and their clocks, the
// request journal, the outbox, calls, webhook deliveries and fault rules.
//
// It serves files only: everything the page shows comes from the admin
// API's own routes, so the dashboard adds no state and no second way to
// change it.
package dashboard

import (
	"embed"
	"net/http"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

//go:embed static/index.html static/app.js static/app.css
var static embed.FS

// securityHeaders keep the page to its own origin: scripts, styles and
// requests from /_mock only (the Content-Security-Policy is what makes
// "nothing fetched from outside" hold), no framing, no sniffing.
var securityHeaders = http.Header{
	"Content-Security-Policy": {"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"},
	"X-Content-Type-Options":  {"nosniff"},
	"Referrer-Policy":         {"no-referrer"},
	"Cache-Control":           {"no-cache"},
}

// file responds with one embedded file with its content type.
func file(name, contentType string) httpapi.Handler {
	body, err := static.ReadFile("static/" + name)
	if err != nil {
		panic("dashboard: " + err.Error()) // the embed directive lists every file
	}
	return func(*httpapi.Ctx) (any, error) {
		return &httpapi.Respond{Status: http.StatusOK, Header: securityHeaders.Clone(),
			Body: &httpapi.RawBody{ContentType: contentType, Body: body}}, nil
	}
}

// Handlers are the dashboard's handlers by operation (httpapi.Table).
func Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"getDashboard":       file("index.html", "text/html; charset=utf-8"),
		"getDashboardScript": file("app.js", "text/javascript; charset=utf-8"),
		"getDashboardStyle":  file("app.css", "text/css; charset=utf-8"),
	}
}
