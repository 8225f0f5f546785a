package mockserver

import (
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// AddScript adds the steps of sc to the script of the tenant owning
// sc.BusinessID and returns them, calls first. Nothing is added when a step
// is refused.
func (s *Server) AddScript(sc Script) ([]ScriptStep, error) {
	in := sc
	if err := httpapi.Validate("mockScript", in); err != nil {
		return nil, publicError(err)
	}
	tx := s.platform.WriteTx()
	defer tx.End()
	steps, err := s.telephony.AddScript(tx, in)
	if err != nil {
		return nil, publicError(err)
	}
	return steps, nil
}

// ScriptSteps returns the script of the tenant owning businessID, oldest
// step first, used and pending: every page GET /_mock/scripts would list.
func (s *Server) ScriptSteps(businessID string) ([]ScriptStep, error) {
	var out []ScriptStep
	pq := httpapi.PageQuery{Limit: telephony.MaxStepPage}
	for {
		page, err := s.scriptPage(businessID, pq)
		if err != nil {
			return nil, err
		}
		out = append(out, page.Steps...)
		if !page.HasMore {
			return out, nil
		}
		pq.After = page.Steps[len(page.Steps)-1].CreatedAt
	}
}

// scriptPage reads one page of a tenant's script, under a read Tx of its own.
func (s *Server) scriptPage(businessID string, pq httpapi.PageQuery) (telephony.StepPage, error) {
	tx := s.platform.ReadTx()
	defer tx.End()
	page, err := telephony.ScriptSteps(tx, businessID, pq, "")
	if err != nil {
		return telephony.StepPage{}, publicError(err)
	}
	return page, nil
}

// ClearScript removes the pending steps of the script of the tenant owning
// businessID and returns how many it removed.
func (s *Server) ClearScript(businessID string) (int, error) {
	tx := s.platform.WriteTx()
	defer tx.End()
	n, err := telephony.ClearScript(tx, businessID)
	if err != nil {
		return 0, publicError(err)
	}
	return n, nil
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
