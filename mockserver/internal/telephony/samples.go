package telephony

import (
	"bytes"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// SampleRecords returns the records of a business that the sample data of
// events emitted without data takes its values from (hooks.SampleRecordsFunc):
// its name, first agent and number, and its latest call and lead as their
// reads show them.
func (s *Service) SampleRecords(tx *platform.Tx, businessID string) webhooks.SampleRecords {
	r := webhooks.SampleRecords{BusinessID: businessID} // hooks sets the time
	if b, ok := tx.Businesses.Get(businessID); ok {
		r.BusinessName = b.Name
	}
	if agents := tx.Agents.Owned(businessID); len(agents) > 0 {
		r.AgentID, r.AgentName = agents[0].ID, agents[0].Name
	}
	if nums := tx.Numbers.Owned(businessID); len(nums) > 0 {
		r.PhoneNumberID, r.PhoneNumber = nums[0].ID, nums[0].PhoneNumber
	}
	if calls := tx.Calls.Owned(businessID); len(calls) > 0 {
		r.Call = encode(callDetail(tx, calls[len(calls)-1]))
	}
	if leads := tx.Leads.Owned(businessID); len(leads) > 0 {
		r.Lead = encode(LeadDetail(tx, leads[len(leads)-1]))
	}
	return r
}

// encode returns the JSON of a view, as the API writes it.
func encode(v any) []byte {
	b, err := jsonview.EncodeJSON(v)
	if err != nil {
		return nil
	}
	return bytes.TrimSpace(b)
}
