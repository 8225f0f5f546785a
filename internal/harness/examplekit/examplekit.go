// Package examplekit holds what the example commands (examples/...) share:
// their in-process mock server, the business they work for against a real
// service, and a few ways of printing.
package examplekit

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Mock is a mock server listening on a loopback port, as an example runs
// against it by default.
type Mock struct {
	*mockserver.Server
	// BaseURL is the API's base URL (ends in /api).
	BaseURL string
	hs      *httptest.Server
}

// StartMock starts a mock server with opts on a loopback port. Close it
// when done.
func StartMock(opts ...mockserver.Option) *Mock {
	srv := mockserver.New(opts...)
	hs := httptest.NewServer(srv)
	return &Mock{Server: srv, BaseURL: hs.URL + "/api", hs: hs}
}

// Close stops the listener, then the server's background work.
func (m *Mock) Close() {
	m.hs.Close()
	m.Server.Close()
}

// Business is the business an example works for against a real service:
// VOICEAGENT_BUSINESS_ID when set, else the business of the first agent the
// client's key reaches. how says which, for printing.
func Business(ctx context.Context, c *client.Client) (id, how string, err error) {
	if id := os.Getenv("VOICEAGENT_BUSINESS_ID"); id != "" {
		return id, "VOICEAGENT_BUSINESS_ID", nil
	}
	agents, err := c.Agents.List(ctx, nil)
	if err != nil {
		return "", "", fmt.Errorf("listing agents: %w", err)
	}
	if len(agents) == 0 {
		return "", "", errors.New("the key reaches no business with an agent; set VOICEAGENT_BUSINESS_ID")
	}
	return agents[0].BusinessID, "of agent " + agents[0].Name, nil
}

// Counts prints the non-zero counts of m by key, as "a 1, b 2" ("none"
// when there are none).
func Counts[K ~string](m map[K]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Zone is the IANA time zone name, or UTC when it is unknown here.
func Zone(name string) *time.Location {
	l, err := time.LoadLocation(name)
	if err != nil {
		return time.UTC
	}
	return l
}

// Str prints an optional string ("-" for none).
func Str(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
