package agency

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"getAgencyEnrollments":       s.getAgencyEnrollments,
		"commandAgencyEnrollments":   s.agencyPost("enrollments", s.commands["enrollments"]),
		"getAgencyInstallations":     s.getAgencyInstallations,
		"commandAgencyInstallations": s.agencyPost("installations", s.commands["installations"]),
		"getAgencyOffers":            s.getAgencyOffers,
		"commandAgencyOffers":        s.agencyPost("offers", s.commands["offers"]),
		"getAgencyProfile":           s.getAgencyProfile,
		"commandAgencyProfile":       s.agencyPost("profile", s.commands["profile"]),
	}
}
