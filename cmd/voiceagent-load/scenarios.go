package main

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// fixtures are the ids the scenarios use.
type fixtures struct {
	businessID string
	agentID    string
}

// seed fills the store before the run.
func seed(srv *mockserver.Server, acct *mockserver.Account, records int) (*fixtures, error) {
	_ = srv
	_ = records
	return &fixtures{businessID: acct.BusinessID, agentID: acct.AgentID}, nil
}

// scenarios are the requests the load drives.
func scenarios(fx *fixtures) []scenario {
	return []scenario{
		{name: "GET /v1/agents", method: http.MethodGet, path: func(int64) string { return "/api/v1/agents" }},
	}
}
