package mockserver

import (
	"net/http"
	"net/url"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// Schedule returns the pending work of the tenant owning businessID, in
// the order it will run. Each task leaves the list when it runs.
func (s *Server) Schedule(businessID string) ([]ScheduledTask, error) {
	var v admin.Schedule
	if err := s.admin(http.MethodGet, "/schedule", url.Values{"business_id": {businessID}}, nil, &v); err != nil {
		return nil, err
	}
	return v.Tasks, nil
}

// Schedule returns the pending work of the account's tenant: see
// Server.Schedule.
func (a *Account) Schedule() ([]ScheduledTask, error) { return a.srv.Schedule(a.BusinessID) }
