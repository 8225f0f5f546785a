package webhookstest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// CheckHandler runs the checks of [Check] against h, served on a loopback
// test server for the duration of the call, with deliveries signed with
// secret. It fails t (t.Errorf, saying what to fix) once per failed
// required check, logs a failed recommended check, and returns the report.
// A secret that is not in whsec_ form fails t at once.
func CheckHandler(t testing.TB, h http.Handler, secret string, opts ...Option) *Report {
	t.Helper()
	srv := httptest.NewServer(h)
	defer srv.Close()
	ctx := context.Background()
	if c, ok := t.(interface{ Context() context.Context }); ok {
		ctx = c.Context()
	}
	report, err := Check(ctx, srv.URL+"/webhooks", secret, append([]Option{WithHTTPClient(srv.Client())}, opts...)...)
	if err != nil {
		t.Fatal(err)
		return nil
	}
	for _, c := range report.Checks {
		name := c.ID
		if c.Event != "" {
			name += " (" + string(c.Event) + ")"
		}
		switch {
		case c.Passed:
		case c.Required:
			t.Errorf("receiver check %s failed: %s", name, c.Detail)
		default:
			t.Logf("recommended receiver check %s failed: %s", name, c.Detail)
		}
	}
	return report
}
