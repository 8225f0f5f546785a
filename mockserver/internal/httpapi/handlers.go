package httpapi

// Handlers are the handlers of the pipeline's own admin routes, by operation (httpapi.Table).
func (s *API) Handlers() Handlers {
	return Handlers{
		"getClock":                s.adminClock,
		"advanceClock":            s.adminAdvance,
		"clearFaults":             s.adminClearFaults,
		"listFaults":              s.adminListFaults,
		"addFault":                s.adminAddFault,
		"listRequests":            s.adminRequests,
		"reset":                   s.adminReset,
		"getHealth":               s.adminHealth,
		"getAdminOpenAPIDocument": s.adminOpenAPI,
		"listTenants":             s.adminTenants,
	}
}
