package voiceagent

// TouchRef is embedded in the calls and texts of communication runs and
// approval requests (calls.Call, sms.Message and the data of call.* and
// sms.* events): it says which run touch or approval request placed the
// call or sent the text, so a partner matches events back to its own
// records by ExternalRef and TouchID. Every field is empty on other calls
// and texts.
type TouchRef struct {
	// CommunicationRunID is the run whose touch placed the call or sent the text.
	CommunicationRunID string `json:"communication_run_id,omitempty"`
	// ExternalRef is the run's external_ref.
	ExternalRef string `json:"external_ref,omitempty"`
	// TouchID is the touch's touch_id.
	TouchID string `json:"touch_id,omitempty"`
	// ApprovalRequestID is the approval request that placed the call.
	ApprovalRequestID string `json:"approval_request_id,omitempty"`
}
