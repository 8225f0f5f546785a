package webhooks

import "time"

// LeadEmailData is the data of lead_email.sent and lead_email.failed
// events: an email the outbound-sales pipeline sent to a lead. Status is
// sent or failed; Error says why a failed one bounced.
type LeadEmailData struct {
	ID         string     `json:"id"`
	LeadID     string     `json:"lead_id"`
	BusinessID string     `json:"business_id"`
	To         string     `json:"to"`
	From       string     `json:"from"`
	Subject    string     `json:"subject"`
	Body       string     `json:"body"`
	Status     string     `json:"status"`
	Error      string     `json:"error"`
	CreatedAt  time.Time  `json:"created_at"`
	SentAt     *time.Time `json:"sent_at"`
}

// LeadEmail returns the email of a lead_email.* event.
func (e *Event) LeadEmail() (*LeadEmailData, error) {
	return family[LeadEmailData](e, "lead email", "lead_email.")
}
