package mockserver

// Schedule returns the pending work of the tenant owning businessID, in
// the order it will run. Each task leaves the list when it runs.
func (s *Server) Schedule(businessID string) ([]ScheduledTask, error) {
	v, err := s.httpapi.Schedule(businessID)
	if err != nil {
		return nil, publicError(err)
	}
	return v.Tasks, nil
}

// Schedule returns the pending work of the account's tenant: see
// Server.Schedule.
func (a *Account) Schedule() ([]ScheduledTask, error) { return a.srv.Schedule(a.BusinessID) }
