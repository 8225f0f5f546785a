// Package catalog is the products and knowledge domain of the mock server.
// It adds the knowledge entry an agent answered from to finished calls'
// summaries (a platform hook).
package catalog

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// Service is the catalog domain of one server.
type Service struct {
	*platform.Platform
}

// New returns the catalog domain of engine p.
func New(p *platform.Platform) *Service {
	s := &Service{Platform: p}
	s.startCatalog()
	return s
}
