package mockserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
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
	// approvalCallbackEvent is the event of the callback body.
	approvalCallbackEvent = "approval.decided"
)

type approvalBody struct {
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

func (s *Server) createApprovalRequest(rc *reqCtx) (any, error) {
	var b approvalBody
	if err := rc.decode(&b); err != nil {
		return nil, err
	}
	if !strings.HasPrefix(b.Channel.Type, "voice") {
		return nil, newError(http.StatusNotImplemented, codeNotImplemented,
			"channel type "+b.Channel.Type+" is not available: only voice and voice_then_sms place a call; approvals over SMS are not implemented")
	}
	if !b.ExpiresAt.After(rc.now) {
		return nil, errInvalidField("/expires_at", "must be in the future")
	}
	if err := s.approvalCallbackAllowed(b.CallbackURL); err != nil {
		return nil, err
	}
	biz, agent, number := approvalCaller(rc)
	if number == nil {
		return nil, newError(http.StatusConflict, codeConflict, "none of the key's businesses has an agent with a phone number to place the approval call from")
	}
	secret, shown := s.approvalSecret(rc, b.CallbackSecretID)
	a := &store.ApprovalRequest{
		BusinessID: biz, Source: b.Source, SourceRequestID: b.SourceRequestID, SourceIntentID: b.SourceIntentID,
		MessageID: b.MessageID, RespondsToHash: b.RespondsToHash, PrincipalID: b.PrincipalID,
		ChannelType: b.Channel.Type, ChannelAddress: b.Channel.Address, Summary: b.Summary, RiskLevel: b.RiskLevel,
		RequiredFactors: b.RequiredFactors, ExpiresAt: b.ExpiresAt.UTC(), CallbackURL: b.CallbackURL,
		CallbackSecretID: b.CallbackSecretID, Secret: secret, Status: approvalCalling, CallbackStatus: callbackNone,
	}
	a.ID = s.ids.uuid()
	// Owned by the business it is placed from, like every record: a key
	// restricted to another business of the same user does not see it.
	a.Owner = biz
	id := a.ID
	opener := fmt.Sprintf("Hello, this is an approval request from %s. %s Do you approve?", b.Source, b.Summary)
	if len(b.RequiredFactors) > 0 {
		opener += " Before you answer I will need to verify: " + strings.Join(b.RequiredFactors, ", ") + "."
	}
	callID, apiErr := s.placeTouchCall(rc.st, rc.now, touchCall{
		AgentID: agent.ID, From: number.PhoneNumber, To: b.Channel.Address, FirstMessage: opener,
		Context: string(mustJSON(map[string]any{
			"approval_request_id": id, "summary": b.Summary, "risk_level": b.RiskLevel,
			"required_factors": b.RequiredFactors, "principal_id": b.PrincipalID,
		})),
		Ref: store.TouchRef{ApprovalRequestID: id},
	})
	if apiErr != nil {
		return nil, apiErr
	}
	a.CallID = callID
	a.CreatedAt = rc.st.ApprovalRequests.Stamp(rc.now)
	a.UpdatedAt = a.CreatedAt
	rc.st.ApprovalRequests.Put(a)
	s.schedule(a.ExpiresAt, func(now time.Time) {
		if a, ok := s.st.ApprovalRequests.Get(id); ok && a.Status == approvalCalling {
			s.decideApproval(s.st, a, now, approvalExpired, "nobody decided before expires_at")
		}
	})
	v := approvalView(a)
	if shown {
		v["callback_secret"] = secret
	}
	return created(v), nil
}

// startApprovals subscribes approval requests to the ends of their calls
// and registers the approval callback kind of delivery: built from the
// request's secret at each attempt (canceled once the request is gone),
// its outcome copied onto the request.
func (s *Server) startApprovals() {
	s.onCallEnded(func(st *store.Store, now time.Time, c *store.Call) {
		if c.Ref.ApprovalRequestID != "" {
			s.approvalCallEnded(st, now, c.Ref.ApprovalRequestID, callTouchEnd(c))
		}
	})
	s.registerDeliveryKind(store.DeliveryApprovalCallback, deliveryKind{
		request: func(st *store.Store, d *store.Delivery, n int, at, wall time.Time) (outboundRequest, map[string]string, string) {
			a, ok := st.ApprovalRequests.Get(d.ApprovalRequestID)
			if !ok {
				return outboundRequest{}, nil, "the approval request was deleted"
			}
			req, shown := approvalCallbackRequest(a, d, n, wall)
			return req, shown, ""
		},
		changed: approvalCallbackUpdated,
	})
}

// approvalCallEnded decides an approval request when its call ends: a
// completed call is the approver's answer (approved, or denied on the magic
// number), a failed one leaves it unreachable. A request already decided
// (expired) ignores the call's end. The caller holds the write lock.
func (s *Server) approvalCallEnded(st *store.Store, now time.Time, id string, end touchEnd) {
	a, ok := st.ApprovalRequests.Get(id)
	if !ok || a.Status != approvalCalling {
		return
	}
	switch {
	case end.Status != touchCompleted:
		s.decideApproval(st, a, now, approvalUnreachable, "the approval call failed: "+end.Code)
	case a.ChannelAddress == approvalDeniesNumber:
		s.decideApproval(st, a, now, approvalDenied, "the approver declined on the call")
	default:
		a.VerifiedFactors = slices.Clone(a.RequiredFactors)
		s.decideApproval(st, a, now, approvalApproved, "the approver approved on the call")
	}
}

// approvalCaller is the business, agent and number that place an approval
// call: the first of the key's businesses (oldest first) whose intake (or
// first numbered) agent has a number.
func approvalCaller(rc *reqCtx) (string, *store.Agent, *store.Number) {
	for _, biz := range rc.p.businesses {
		if a := defaultRunAgent(rc.st, biz); a != nil {
			if n := rc.st.NumbersByPhone[a.PhoneNumber]; n != nil && n.Owner == biz {
				return biz, a, n
			}
		}
	}
	return "", nil, nil
}

// approvalSecret returns the secret that signs a request's callback and
// whether the answer shows it: a named secret (callback_secret_id) is made
// on first use and shown then only; without a name every request gets its
// own secret, shown once.
func (s *Server) approvalSecret(rc *reqCtx, secretID *string) (string, bool) {
	if secretID != nil {
		k := rc.p.user.ID + "\x00" + *secretID
		if sec, ok := rc.st.ApprovalSecrets[k]; ok {
			return sec, false
		}
		sec := s.newSigningSecret()
		rc.st.ApprovalSecrets[k] = sec
		return sec, true
	}
	return s.newSigningSecret(), true
}

// decideApproval records the outcome of an approval request and sends it to
// the callback. The caller holds the write lock.
func (s *Server) decideApproval(st *store.Store, a *store.ApprovalRequest, now time.Time, status, reason string) {
	a.Status, a.Reason, a.DecidedAt = status, reason, utcPtr(now)
	a.UpdatedAt = now.UTC()
	a.CallbackEventID = s.ids.uuid()
	s.startApprovalCallback(st, a, mustJSON(map[string]any{
		"id": a.CallbackEventID, "event": approvalCallbackEvent, "business_id": a.BusinessID,
		"timestamp": now.UTC(), "data": approvalCallbackData(a),
	}))
}

// approvalCallbackData is the data of the callback: the decision and the
// references the requester matches it back with.
func approvalCallbackData(a *store.ApprovalRequest) map[string]any {
	return map[string]any{
		"approval_request_id": a.ID, "decision": a.Status, "reason": a.Reason,
		"source": a.Source, "source_request_id": a.SourceRequestID, "source_intent_id": a.SourceIntentID,
		"message_id": a.MessageID, "responds_to_hash": a.RespondsToHash, "principal_id": a.PrincipalID,
		"channel":    map[string]any{"type": a.ChannelType, "address": a.ChannelAddress},
		"risk_level": a.RiskLevel, "required_factors": nonNil(a.RequiredFactors),
		"verified_factors": nonNil(a.VerifiedFactors), "call_id": nullable(a.CallID),
		"decided_at": a.DecidedAt, "expires_at": a.ExpiresAt,
	}
}

func (s *Server) getApprovalRequests(rc *reqCtx) (any, error) {
	var match func(*store.ApprovalRequest) bool
	if status := rc.query("status"); status != "" {
		match = func(a *store.ApprovalRequest) bool { return a.Status == status }
	}
	return readOrList(rc, rc.st.ApprovalRequests, "approval request", "approval_requests", match, approvalView)
}

// approvalView is an approval request as the API shows it (never its
// secret).
func approvalView(a *store.ApprovalRequest) map[string]any {
	return map[string]any{
		"id": a.ID, "status": a.Status, "business_id": a.BusinessID, "source": a.Source,
		"source_request_id": a.SourceRequestID, "source_intent_id": a.SourceIntentID, "message_id": a.MessageID,
		"responds_to_hash": a.RespondsToHash, "principal_id": a.PrincipalID,
		"channel": map[string]any{"type": a.ChannelType, "address": a.ChannelAddress},
		"summary": a.Summary, "risk_level": a.RiskLevel, "required_factors": nonNil(a.RequiredFactors),
		"expires_at": a.ExpiresAt, "callback_url": a.CallbackURL, "callback_secret_id": a.CallbackSecretID,
		"call_id": nullable(a.CallID), "verified_factors": nonNil(a.VerifiedFactors),
		"reason": nullable(a.Reason), "decided_at": a.DecidedAt,
		"callback": map[string]any{
			"status": a.CallbackStatus, "event_id": nullable(a.CallbackEventID), "error": nullable(a.CallbackError),
			"attempts": slices.Clone(a.CallbackAttempts), "next_attempt_at": a.NextAttemptAt,
		},
		"created_at": a.CreatedAt, "updated_at": a.UpdatedAt,
	}
}
