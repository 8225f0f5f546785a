package mockserver

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// AddScript adds the steps of sc to the script of the tenant owning
// sc.BusinessID and returns them, calls first. Nothing is added when a step
// is refused.
func (s *Server) AddScript(sc Script) ([]ScriptStep, error) {
	var v struct {
		Steps []ScriptStep `json:"steps"`
	}
	if err := s.admin(http.MethodPost, "/scripts", nil, sc, &v); err != nil {
		return nil, err
	}
	return v.Steps, nil
}

// ScriptSteps returns the script of the tenant owning businessID, oldest
// step first, used and pending: every page GET /_mock/scripts lists.
func (s *Server) ScriptSteps(businessID string) ([]ScriptStep, error) {
	out := []ScriptStep{}
	q := url.Values{"business_id": {businessID}, "limit": {"1000"}}
	for {
		var page struct {
			Steps   []ScriptStep `json:"steps"`
			HasMore bool         `json:"has_more"`
		}
		if err := s.admin(http.MethodGet, "/scripts", q, nil, &page); err != nil {
			return nil, err
		}
		out = append(out, page.Steps...)
		if !page.HasMore || len(page.Steps) == 0 {
			return out, nil
		}
		q.Set("after", page.Steps[len(page.Steps)-1].CreatedAt.Format(time.RFC3339Nano))
	}
}

// ClearScript removes the pending steps of the script of the tenant owning
// businessID and returns how many it removed.
func (s *Server) ClearScript(businessID string) (int, error) {
	var v struct {
		Deleted int `json:"deleted"`
	}
	if err := s.admin(http.MethodDelete, "/scripts", url.Values{"business_id": {businessID}}, nil, &v); err != nil {
		return 0, err
	}
	return v.Deleted, nil
}

// Script adds steps to the account's tenant's script: see Server.AddScript.
func (a *Account) Script(sc Script) ([]ScriptStep, error) {
	sc.BusinessID = a.BusinessID
	return a.srv.AddScript(sc)
}

// ScriptSteps returns the account's tenant's script: see Server.ScriptSteps.
func (a *Account) ScriptSteps() ([]ScriptStep, error) { return a.srv.ScriptSteps(a.BusinessID) }

// ClearScript removes the pending steps of the account's tenant's script.
func (a *Account) ClearScript() (int, error) { return a.srv.ClearScript(a.BusinessID) }

// VerifyScript fails t for each step of the account's tenant's script that
// no call or text used, as a mock's verification would: call it at the end
// of a test that scripted the other end.
func (a *Account) VerifyScript(t testing.TB) {
	t.Helper()
	steps, err := a.ScriptSteps()
	if err != nil {
		t.Errorf("mockserver: the script: %v", err)
		return
	}
	for _, st := range steps {
		if st.Status != admin.StepUsed {
			t.Errorf("mockserver: script step %s was not used: a %s to %s, %s", st.ID, st.Kind, st.To, st.Outcome)
		}
	}
}
