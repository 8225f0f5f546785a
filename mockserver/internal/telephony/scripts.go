package telephony

import (
	"fmt"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// StepList is the response of POST /_mock/scripts.
type StepList struct {
	Steps []admin.ScriptStep `json:"steps"`
}

// StepPage is a page of GET /_mock/scripts: steps oldest first, and whether
// more follow the last (read on with after, its created_at).
type StepPage struct {
	Steps   []admin.ScriptStep `json:"steps"`
	HasMore bool               `json:"has_more"`
}

// MaxStepPage is how many steps a page of GET /_mock/scripts lists at most,
// and by default.
const MaxStepPage = 1000

func stepView(st *store.ScriptStep) admin.ScriptStep {
	v := admin.ScriptStep{
		ID: st.ID, BusinessID: st.Owner, Kind: admin.StepKind(st.Kind), To: st.To, Outcome: admin.Outcome(st.Outcome),
		RingSeconds: st.RingSeconds, Duration: st.Duration, Transcript: st.Transcript,
		Summary: st.Summary, Caller: st.Caller, Reply: st.Reply,
		Status: admin.StepPending, UsedAt: st.UsedAt, CreatedAt: st.CreatedAt,
	}
	if !st.Pending() {
		v.Status = admin.StepUsed
		v.UsedBy = val.Strp(st.UsedBy)
	}
	return v
}

// checkScript refuses what the body's schema cannot say: the members a
// step's outcome does not use.
func checkScript(in admin.Script) *domain.Error {
	if len(in.Calls)+len(in.Texts) == 0 {
		return domain.Invalid("a script needs at least one step in calls or texts")
	}
	for i, c := range in.Calls {
		at := func(f string) string { return fmt.Sprintf("/calls/%d/%s", i, f) }
		if c.Outcome != store.StepCompleted {
			switch {
			case c.Duration != nil:
				return domain.InvalidField(at("duration"), "duration applies only to a completed call, not %s", c.Outcome)
			case len(c.Transcript) > 0:
				return domain.InvalidField(at("transcript"), "transcript applies only to a completed call, not %s", c.Outcome)
			case c.Summary != "" && c.Outcome != store.StepVoicemail:
				return domain.InvalidField(at("summary"), "summary applies only to a completed or voicemail call, not %s", c.Outcome)
			case c.Caller != nil:
				return domain.InvalidField(at("caller"), "caller applies only to a completed call, not %s", c.Outcome)
			}
		}
		if c.Outcome == store.StepRejected && c.RingSeconds != nil {
			return domain.InvalidField(at("ring_seconds"), "a rejected call never rings")
		}
	}
	for i, t := range in.Texts {
		if t.Reply != nil && t.Outcome != store.StepDelivered {
			return domain.InvalidField(fmt.Sprintf("/texts/%d/reply", i), "only a delivered text gets a reply")
		}
	}
	return nil
}

// AddScript adds the steps of in to the script of the tenant owning
// in.BusinessID, calls first, each kind in the order given, and returns
// them. Nothing is added when a step is refused, nor when the tenant would
// hold more than store.MaxPendingSteps pending steps.
func (s *Service) AddScript(tx *platform.Tx, in admin.Script) ([]admin.ScriptStep, *domain.Error) {
	if _, ok := tx.Businesses.Get(in.BusinessID); !ok {
		return nil, domain.NotFound("business not found: " + in.BusinessID)
	}
	if err := checkScript(in); err != nil {
		return nil, err
	}
	tenant := tx.TenantOf(in.BusinessID)
	if err := checkPending(tx.PendingSteps(tenant), in); err != nil {
		return nil, err
	}
	now := s.Now(tenant)
	var out []admin.ScriptStep
	for _, c := range in.Calls {
		st := &store.ScriptStep{
			Kind: store.StepCall, To: c.To, Outcome: string(c.Outcome), RingSeconds: c.RingSeconds,
			Duration: c.Duration, Transcript: c.Transcript, Summary: c.Summary, Caller: c.Caller,
		}
		tx.Scripts.Insert(st, tenant, now)
		out = append(out, stepView(st))
	}
	for _, t := range in.Texts {
		st := &store.ScriptStep{Kind: store.StepText, To: t.To, Outcome: string(t.Outcome), Reply: t.Reply}
		tx.Scripts.Insert(st, tenant, now)
		out = append(out, stepView(st))
	}
	return out, nil
}

// checkPending refuses the steps of in when a tenant holding pending steps
// already would then hold more than store.MaxPendingSteps, naming the first
// step past the bound.
func checkPending(pending int, in admin.Script) *domain.Error {
	if pending+len(in.Calls)+len(in.Texts) <= store.MaxPendingSteps {
		return nil
	}
	first := max(store.MaxPendingSteps-pending, 0) // its index, calls first
	path := fmt.Sprintf("/calls/%d", first)
	if first >= len(in.Calls) {
		path = fmt.Sprintf("/texts/%d", first-len(in.Calls))
	}
	return domain.InvalidField(path, "the tenant holds %d pending script steps and may hold at most %d: from this step on the request's steps are too many, and none was added; "+
		"let calls and texts use pending steps, or remove them (DELETE /_mock/scripts), first", pending, store.MaxPendingSteps)
}

// ScriptSteps returns a page of the steps of the script of the tenant
// owning businessID, oldest first (pq.Oldest is implied), those with
// status (admin.StepPending, admin.StepUsed; "": both), and whether more follow.
func ScriptSteps(tx *platform.Tx, businessID string, pq httpapi.PageQuery, status admin.StepStatus) (StepPage, *domain.Error) {
	if _, ok := tx.Businesses.Get(businessID); !ok {
		return StepPage{}, domain.NotFound("business not found: " + businessID)
	}
	pq.Oldest = true
	steps, more := httpapi.ListPage(tx.Scripts, []string{tx.TenantOf(businessID)}, pq, func(st *store.ScriptStep) bool {
		return status == "" || st.Pending() == (status == admin.StepPending)
	}, stepView)
	return StepPage{Steps: steps, HasMore: more}, nil
}

// ClearScript removes the pending steps of the script of the tenant owning
// businessID and returns how many it removed. Used steps stay, as a record
// of what happened.
func ClearScript(tx *platform.Tx, businessID string) (int, *domain.Error) {
	if _, ok := tx.Businesses.Get(businessID); !ok {
		return 0, domain.NotFound("business not found: " + businessID)
	}
	var ids []string
	for _, st := range tx.Scripts.Owned(tx.TenantOf(businessID)) {
		if st.Pending() {
			ids = append(ids, st.ID)
		}
	}
	for _, id := range ids {
		tx.Scripts.Delete(id)
	}
	return len(ids), nil
}

func (s *Service) adminAddScript(rc *httpapi.Ctx) (any, error) {
	var in admin.Script
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	steps, err := s.AddScript(rc.Tx, in)
	if err != nil {
		return nil, err
	}
	return httpapi.Created(StepList{Steps: steps}), nil
}

func (s *Service) adminListScript(rc *httpapi.Ctx) (any, error) {
	biz, err := rc.RequireQuery("business_id")
	if err != nil {
		return nil, err
	}
	pq, err := rc.PageQuery(MaxStepPage, MaxStepPage)
	if err != nil {
		return nil, err
	}
	status := admin.StepStatus(rc.Query("status"))
	if status != "" && status != admin.StepPending && status != admin.StepUsed {
		return nil, domain.InvalidField("status", "must be %s or %s", admin.StepPending, admin.StepUsed)
	}
	page, apiErr := ScriptSteps(rc.Tx, biz, pq, status)
	if apiErr != nil {
		return nil, apiErr
	}
	return page, nil
}

func (s *Service) adminClearScript(rc *httpapi.Ctx) (any, error) {
	biz, err := rc.RequireQuery("business_id")
	if err != nil {
		return nil, err
	}
	n, apiErr := ClearScript(rc.Tx, biz)
	if apiErr != nil {
		return nil, apiErr
	}
	return map[string]int{"deleted": n}, nil
}

// CallRefusal returns the error a call of agent a to the number to would
// get from the carrier now, without placing it: a rejected script step or
// the magic failing number; nil when the carrier would take the call. Dry
// runs predict with it.
func CallRefusal(tx *platform.Tx, a *store.Agent, to string) *domain.Error {
	return callRefusal(tx.NextStep(tx.TenantOf(a.Owner), store.StepCall, to), to)
}

// TextRefusal returns the error a text of agent a to the number to would
// get from the carrier now, without sending it: a failed script step or the
// magic failing number; nil when the carrier would deliver it.
func TextRefusal(tx *platform.Tx, a *store.Agent, to string) *domain.Error {
	return textRefusal(tx.NextStep(tx.TenantOf(a.Owner), store.StepText, to), to)
}

// callRefusal is the carrier's refusal of a call to the number to that
// follows step (nil: none): the step's when it is rejected, the magic
// failing number's when there is no step, else nil.
func callRefusal(step *store.ScriptStep, to string) *domain.Error {
	switch {
	case step != nil && step.Outcome == store.StepRejected:
		return stepRefusal(ErrMagicCallFailed(to))
	case step == nil && to == MagicCallFailed:
		return ErrMagicCallFailed(to)
	}
	return nil
}

// textRefusal is the carrier's failure of a text to the number to that
// follows step (nil: none), as callRefusal is for calls.
func textRefusal(step *store.ScriptStep, to string) *domain.Error {
	switch {
	case step != nil && step.Outcome == store.StepFailed:
		return stepRefusal(ErrCarrierRejected(to))
	case step == nil && to == MagicSMSSendFails:
		return ErrCarrierRejected(to)
	}
	return nil
}

// stepRefusal is e as a script step's refusal: not transient, since the
// step is used, so that a retry with the same Idempotency-Key gets this
// response again instead of taking the next step.
func stepRefusal(e *domain.Error) *domain.Error {
	e.Transient = false
	return e
}

// scriptedTranscript renders a step's transcript as Agent: and Caller:
// lines.
func scriptedTranscript(turns []admin.Turn) string {
	lines := make([]string, len(turns))
	for i, t := range turns {
		who := "Agent"
		if t.Role == "caller" {
			who = "Caller"
		}
		lines[i] = who + ": " + t.Text
	}
	return strings.Join(lines, "\n")
}

// voicemailMessage is what the agent of an outbound call says to a
// voicemail box: its vendor_config voicemailMessage, else a message of its
// own.
func voicemailMessage(a *store.Agent, b *store.Business, c *store.Call) string {
	if a != nil {
		if m, _ := a.VendorConfig["voicemailMessage"].(string); strings.TrimSpace(m) != "" {
			return m
		}
	}
	name := c.AgentName
	biz := "us"
	if b != nil {
		biz = b.Name
	}
	msg := "Hi" + prefixed(" ", c.Name) + ", this is " + name + " from " + biz + ". Sorry we missed you."
	if c.From != "" {
		msg += " Please call us back at " + c.From + "."
	}
	return msg
}
