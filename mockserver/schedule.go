package mockserver

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// ScheduledTask is a piece of a tenant's pending work, as GET
// /_mock/schedule shows it: a simulated process's next step on the
// tenant's clock.
type ScheduledTask struct {
	// At is when the task falls due, at the tenant's time.
	At time.Time `json:"at"`
	// Kind names the work: call.answer, call.fail, call.voicemail,
	// call.missed, call.end, sms.delivery, sms.reply, delivery.attempt,
	// run.touch, sdr.email, sdr.run, approval.expire, agency.retry_command,
	// agency.retry_enrollment, signup.forget_challenge or magic_link.forget.
	Kind string `json:"kind"`
	// SubjectID is the record the task acts on (the call, the text, the
	// delivery, the run, ...).
	SubjectID string `json:"subject_id"`
	// N is the attempt of a delivery.attempt, the touch's index of a
	// run.touch and the generation of the SDR's scheduled runner of an
	// sdr.run (enabling the SDR again starts a new one); 0 otherwise.
	N int `json:"n,omitempty"`
}

// Schedule returns the pending work of the tenant owning businessID, in
// the order it will run. Each task leaves the list when it runs.
func (s *Server) Schedule(businessID string) ([]ScheduledTask, error) {
	v, err := s.httpapi.Schedule(businessID)
	if err != nil {
		return nil, publicError(err)
	}
	return convertSlice(v.Tasks, func(t httpapi.ScheduledTask) ScheduledTask { return ScheduledTask(t) }), nil
}

// Schedule returns the pending work of the account's tenant: see
// Server.Schedule.
func (a *Account) Schedule() ([]ScheduledTask, error) { return a.srv.Schedule(a.BusinessID) }
