package mockserver

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dashboardFiles are the dashboard's files by path, with their content types.
var dashboardFiles = map[string]string{
	"/ui":         "text/html; charset=utf-8",
	"/ui/app.js":  "text/javascript; charset=utf-8",
	"/ui/app.css": "text/css; charset=utf-8",
}

func TestDashboardIsServedAndLoadsNothingFromOutside(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	// Anything that names another origin: an absolute or scheme-relative
	// URL in an attribute, a CSS url() or @import, a fetch of a full URL.
	outside := regexp.MustCompile(`(?i)(src|href|action)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import|fetch\(\s*["'` + "`" + `]https?:`)
	for path, contentType := range dashboardFiles {
		r := rawDo(t, http.MethodGet, srv.AdminURL+path, "")
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		assert.Equal(t, contentType, r.header.Get("Content-Type"), path)
		csp := r.header.Get("Content-Security-Policy")
		assert.Contains(t, csp, "default-src 'none'", path)
		assert.Contains(t, csp, "connect-src 'self'", path)
		assert.NotContains(t, csp, "*", path)
		assert.Equal(t, "nosniff", r.header.Get("X-Content-Type-Options"), path)
		assert.NotEmpty(t, r.header.Get("X-Request-Id"), path)
		assert.Empty(t, outside.FindAllString(string(r.body), -1), "%s names another origin", path)
	}

	page := string(rawDo(t, http.MethodGet, srv.AdminURL+"/ui", "").body)
	assert.Contains(t, page, `<script src="/_mock/ui/app.js" defer></script>`)
	assert.Contains(t, page, `<link rel="stylesheet" href="/_mock/ui/app.css">`)
	assert.NotRegexp(t, `<script>|<style>| on[a-z]+=`, page, "inline code would need a looser policy")

	// The dashboard is not an API request: it is never journaled.
	assert.Empty(t, srv.Requests(nil))
}

func TestDashboardControlsHaveLabels(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	page := string(rawDo(t, http.MethodGet, srv.AdminURL+"/ui", "").body)
	labelled := map[string]bool{}
	for _, m := range regexp.MustCompile(`<label for="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		labelled[m[1]] = true
	}
	// A control inside its label needs no for=.
	for _, m := range regexp.MustCompile(`<label class="check"><input [^>]*id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		labelled[m[1]] = true
	}
	controls := regexp.MustCompile(`<(input|select|textarea)\b[^>]*\bid="([^"]+)"`).FindAllStringSubmatch(page, -1)
	require.NotEmpty(t, controls)
	for _, m := range controls {
		assert.True(t, labelled[m[2]], "<%s id=%q> has no label", m[1], m[2])
	}
	for _, m := range regexp.MustCompile(`<(form|nav|section)\b[^>]*>`).FindAllStringSubmatch(page, -1) {
		assert.Regexp(t, `aria-label(ledby)?=`, m[0], "landmarks are named")
	}
	assert.True(t, strings.Contains(page, `lang="en"`), "the page says its language")
	assert.Contains(t, page, `role="status" aria-live="polite"`, "results of actions are announced")
}
