package governance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	governanceapi "github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/runs"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// States of an approval request and of its callback.
const (
	approvalCalling     = "calling"
	approvalApproved    = "approved"
	approvalDenied      = "denied"
	approvalUnreachable = "unreachable"
	approvalExpired     = "expired"

	callbackNone      = "none"
	callbackPending   = "pending"
	callbackDelivered = "delivered"
	callbackFailed    = "failed"
	callbackNotSent   = "not_sent"

	// approvalDeniesNumber is the magic channel address whose approver
	// answers the call and declines.
	approvalDeniesNumber = "+15005550020"
)

// ApprovalParams is an approval request as POST /v1/approval-requests
// sends it.
type ApprovalParams struct {
	Source          string  `json:"source"`
	SourceRequestID string  `json:"source_request_id"`
	SourceIntentID  *string `json:"source_intent_id"`
	MessageID       *string `json:"message_id"`
	RespondsToHash  *string `json:"responds_to_hash"`
	PrincipalID     string  `json:"principal_id"`
	Channel         struct {
		Type    string `json:"type"`
		Address string `json:"address"`
	} `json:"channel"`
	Summary          string    `json:"summary"`
	RiskLevel        string    `json:"risk_level"`
	RequiredFactors  []string  `json:"required_factors"`
	ExpiresAt        time.Time `json:"expires_at"`
	CallbackURL      string    `json:"callback_url"`
	CallbackSecretID *string   `json:"callback_secret_id"`
}

func (s *Service) createApprovalRequest(rc *httpapi.Ctx) (any, error) {
	var b ApprovalParams
	if err := rc.Decode(&b); err != nil {
		return nil, err
	}
	a, secret, err := s.RequestApproval(rc.Tx, rc.Now, rc.Actor(), &b)
	if err != nil {
		return nil, err
	}
	v := ApprovalView(a)
	v.CallbackSecret = secret
	return httpapi.Created(v), nil
}

// TaskExpireApproval is the kind of an approval request's expiry on the
// schedule (Subject: the request).
const TaskExpireApproval = "approval.expire"

// RequestApproval makes approval request b of who at now: a voice call to
// the approver, placed from the first of who's businesses with an agent
// and a number (409 when none has), asking the summary and naming the
// factors to verify. The call's end decides the request (approvalCallEnded);
// nobody deciding by expires_at expires it. It returns the request and the
// callback secret when the response shows it ("" otherwise): a named
// secret (callback_secret_id) is made on first use and shown then only;
// without a name every request gets its own, shown once. Channels other
// than voice are 501.
func (s *Service) RequestApproval(tx *platform.Tx, now time.Time, who *domain.Actor, b *ApprovalParams) (*store.ApprovalRequest, string, error) {
	if !strings.HasPrefix(b.Channel.Type, "voice") {
		return nil, "", domain.New(voiceagent.CodeNotImplemented,
			"channel type "+b.Channel.Type+" is not available: only voice and voice_then_sms place a call; approvals over SMS are not implemented")
	}
	if !b.ExpiresAt.After(now) {
		return nil, "", domain.InvalidField("/expires_at", "must be in the future")
	}
	if err := s.approvalCallbackAllowed(b.CallbackURL); err != nil {
		return nil, "", err
	}
	biz, agent, number := s.approvalCaller(tx, who)
	if number == nil {
		return nil, "", domain.New(voiceagent.CodeConflict, "none of the key's businesses has an agent with a phone number to place the approval call from")
	}
	secret, shown := s.approvalSecret(tx, who, b.CallbackSecretID)
	a := &store.ApprovalRequest{
		BusinessID: biz, Source: b.Source, SourceRequestID: b.SourceRequestID, SourceIntentID: b.SourceIntentID,
		MessageID: b.MessageID, RespondsToHash: b.RespondsToHash, PrincipalID: b.PrincipalID,
		ChannelType: b.Channel.Type, ChannelAddress: b.Channel.Address, Summary: b.Summary, RiskLevel: b.RiskLevel,
		RequiredFactors: b.RequiredFactors, ExpiresAt: b.ExpiresAt.UTC(), CallbackURL: b.CallbackURL,
		CallbackSecretID: b.CallbackSecretID, Secret: secret, Status: approvalCalling, CallbackStatus: callbackNone,
	}
	a.ID = s.IDs.UUID() // before the call, which refers to it
	id := a.ID
	opener := fmt.Sprintf("Hello, this is an approval request from %s. %s Do you approve?", b.Source, b.Summary)
	if len(b.RequiredFactors) > 0 {
		opener += " Before you answer I will need to verify: " + strings.Join(b.RequiredFactors, ", ") + "."
	}
	callID, apiErr := s.telephony.PlaceTouchCall(tx, now, telephony.TouchCall{
		AgentID: agent.ID, From: number.PhoneNumber, To: b.Channel.Address, FirstMessage: opener,
		Context: string(jsonview.MustMarshal(map[string]any{
			"approval_request_id": id, "summary": b.Summary, "risk_level": b.RiskLevel,
			"required_factors": b.RequiredFactors, "principal_id": b.PrincipalID,
		})),
		Ref: store.TouchRef{ApprovalRequestID: id},
	})
	if apiErr != nil {
		return nil, "", apiErr
	}
	a.CallID = callID
	// Owned by the business it is placed from, like every record: a key
	// restricted to another business of the same user does not see it.
	tx.ApprovalRequests.Insert(a, biz, now)
	a.UpdatedAt = a.CreatedAt
	s.Schedule(tx.TenantOf(biz), clock.Task{At: a.ExpiresAt, Kind: TaskExpireApproval, Subject: id})
	if !shown {
		secret = ""
	}
	return a, secret, nil
}

// startApprovals defines the expiry of approval requests (at expires_at,
// a request nobody decided expires), subscribes approval requests to the
// ends of their calls and registers the approval callback kind of delivery: built from the
// request's secret at each attempt (canceled once the request is gone),
// its outcome copied onto the request.
func (s *Service) startApprovals() {
	s.DefineTask(TaskExpireApproval, func(tx *platform.Tx, now time.Time, t clock.Task) {
		if a, ok := tx.ApprovalRequests.Get(t.Subject); ok && a.Status == approvalCalling {
			s.decideApproval(tx, a, now, approvalExpired, "nobody decided before expires_at")
		}
	})
	s.OnCallEnded(func(tx *platform.Tx, now time.Time, c *store.Call) {
		if id := c.Touch().ApprovalRequestID; id != "" {
			s.approvalCallEnded(tx, now, id, telephony.CallTouchEnd(c))
		}
	})
	s.hooks.RegisterDeliveryKind(store.DeliveryApprovalCallback, hooks.DeliveryKind{
		Request: func(tx *platform.Tx, d *store.Delivery, n int, at, wall time.Time) (hooks.OutboundRequest, map[string]string, string) {
			a, ok := tx.ApprovalRequests.Get(d.ApprovalRequestID)
			if !ok {
				return hooks.OutboundRequest{}, nil, "the approval request was deleted"
			}
			req, shown := approvalCallbackRequest(a, d, n, wall)
			return req, shown, ""
		},
		Changed: approvalCallbackUpdated,
	})
}

// approvalCallEnded decides an approval request when its call ends: a
// completed call is the approver's answer (approved, or denied on the magic
// number), a failed one leaves it unreachable. A request already decided
// (expired) ignores the call's end.
func (s *Service) approvalCallEnded(tx *platform.Tx, now time.Time, id string, end telephony.TouchEnd) {
	a, ok := tx.ApprovalRequests.Get(id)
	if !ok || a.Status != approvalCalling {
		return
	}
	switch {
	case end.Status != telephony.TouchCompleted:
		s.decideApproval(tx, a, now, approvalUnreachable, "the approval call failed: "+end.Code)
	case a.ChannelAddress == approvalDeniesNumber:
		s.decideApproval(tx, a, now, approvalDenied, "the approver declined on the call")
	default:
		tx.ApprovalRequests.Update(a, func(a *store.ApprovalRequest) { a.VerifiedFactors = slices.Clone(a.RequiredFactors) })
		s.decideApproval(tx, a, now, approvalApproved, "the approver approved on the call")
	}
}

// approvalCaller is the business, agent and number that place an approval
// call of who: the first of who's businesses (oldest first) whose intake
// (or first numbered) agent has a number.
func (s *Service) approvalCaller(tx *platform.Tx, who *domain.Actor) (string, *store.Agent, *store.Number) {
	for _, biz := range who.Businesses {
		if a := runs.DefaultRunAgent(tx, biz); a != nil {
			if n := tx.NumbersByPhone[a.PhoneNumber]; n != nil && n.Owner == biz {
				return biz, a, n
			}
		}
	}
	return "", nil, nil
}

// approvalSecret returns the secret that signs a request's callback and
// whether the response shows it: a named secret (callback_secret_id) of
// who's user is made on first use and shown then only; without a name
// every request gets its own secret, shown once.
func (s *Service) approvalSecret(tx *platform.Tx, who *domain.Actor, secretID *string) (string, bool) {
	if secretID != nil {
		k := who.UserID + "\x00" + *secretID
		if sec, ok := tx.ApprovalSecrets[k]; ok {
			return sec, false
		}
		sec := s.hooks.NewSigningSecret()
		tx.ApprovalSecrets[k] = sec
		return sec, true
	}
	return s.hooks.NewSigningSecret(), true
}

// decideApproval records the outcome of an approval request and sends it to
// the callback.
func (s *Service) decideApproval(tx *platform.Tx, a *store.ApprovalRequest, now time.Time, status, reason string) {
	tx.ApprovalRequests.Update(a, func(a *store.ApprovalRequest) {
		a.Status, a.Reason, a.DecidedAt = status, reason, val.UtcPtr(now)
		a.UpdatedAt = now.UTC()
		a.CallbackEventID = s.IDs.UUID()
	})
	s.startApprovalCallback(tx, a, jsonview.MustMarshal(governanceapi.ApprovalCallback{
		ID: a.CallbackEventID, Event: governanceapi.ApprovalCallbackEvent, BusinessID: a.BusinessID,
		Timestamp: now.UTC(), Data: approvalDecision(a),
	}))
}

// approvalDecision is the data of the callback of a decided request: the
// decision and the references the requester matches it back with.
func approvalDecision(a *store.ApprovalRequest) governanceapi.ApprovalDecision {
	return governanceapi.ApprovalDecision{
		ApprovalRequestID: a.ID, Decision: a.Status, Reason: a.Reason,
		Source: a.Source, SourceRequestID: a.SourceRequestID, SourceIntentID: a.SourceIntentID,
		MessageID: a.MessageID, RespondsToHash: a.RespondsToHash, PrincipalID: a.PrincipalID,
		Channel:   governanceapi.ApprovalChannel{Type: a.ChannelType, Address: a.ChannelAddress},
		RiskLevel: a.RiskLevel, RequiredFactors: val.NonNil(a.RequiredFactors),
		VerifiedFactors: val.NonNil(a.VerifiedFactors), CallID: val.Strp(a.CallID),
		DecidedAt: *a.DecidedAt, ExpiresAt: a.ExpiresAt,
	}
}

func (s *Service) getApprovalRequests(rc *httpapi.Ctx) (any, error) {
	var match func(*store.ApprovalRequest) bool
	if status := rc.Query("status"); status != "" {
		match = func(a *store.ApprovalRequest) bool { return a.Status == status }
	}
	return httpapi.ReadOrList(rc, rc.Tx.ApprovalRequests, "approval request", match, ApprovalView, func(items []governanceapi.Approval, more bool) any {
		return approvalList{ApprovalRequests: items, HasMore: more}
	})
}

// approvalList is a page of GET /v1/approval-requests.
type approvalList struct {
	ApprovalRequests []governanceapi.Approval `json:"approval_requests"`
	HasMore          bool                     `json:"has_more"`
}

// ApprovalView is an approval request as the API shows it (never its
// secret: the create alone adds callback_secret when it shows it).
func ApprovalView(a *store.ApprovalRequest) governanceapi.Approval {
	var attempts []governanceapi.CallbackAttempt
	if a.CallbackAttempts != nil {
		attempts = make([]governanceapi.CallbackAttempt, len(a.CallbackAttempts))
		for i, at := range a.CallbackAttempts {
			attempts[i] = governanceapi.CallbackAttempt(at)
		}
	}
	return governanceapi.Approval{
		ID: a.ID, Status: a.Status, BusinessID: a.BusinessID, Source: a.Source,
		SourceRequestID: a.SourceRequestID, SourceIntentID: a.SourceIntentID, MessageID: a.MessageID,
		RespondsToHash: a.RespondsToHash, PrincipalID: a.PrincipalID,
		Channel: governanceapi.ApprovalChannel{Type: a.ChannelType, Address: a.ChannelAddress},
		Summary: a.Summary, RiskLevel: a.RiskLevel, RequiredFactors: val.NonNil(a.RequiredFactors),
		ExpiresAt: a.ExpiresAt, CallbackURL: a.CallbackURL, CallbackSecretID: a.CallbackSecretID,
		CallID: val.Strp(a.CallID), VerifiedFactors: val.NonNil(a.VerifiedFactors),
		Reason: val.Strp(a.Reason), DecidedAt: a.DecidedAt,
		Callback: governanceapi.CallbackState{
			Status: a.CallbackStatus, EventID: val.Strp(a.CallbackEventID), Error: val.Strp(a.CallbackError),
			Attempts: attempts, NextAttemptAt: a.NextAttemptAt,
		},
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}
