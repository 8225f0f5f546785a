package agency

import (
	"encoding/json"
	"fmt"
	"time"
)

// Facts describe a client business; an enrollment installs them on the
// client's agent. SchemaVersion and Profile are required, every other part
// is optional. The server rejects unknown properties anywhere in it.
type Facts struct {
	// SchemaVersion is always 1 (sent as 1 when left 0).
	SchemaVersion  int                     `json:"schemaVersion"`
	Profile        FactsProfile            `json:"profile"`
	Discovery      *Discovery              `json:"discovery,omitempty"`
	IntakeCoverage *IntakeCoverage         `json:"intakeCoverage,omitempty"`
	Qualification  []QualificationQuestion `json:"qualification,omitempty"` // at most 20
	Routing        *Routing                `json:"routing,omitempty"`
	Fallback       *Fallback               `json:"fallback,omitempty"`
	Booking        *Booking                `json:"booking,omitempty"`
	FAQs           []FAQ                   `json:"faqs,omitempty"` // at most 30
	Reporting      *Reporting              `json:"reporting,omitempty"`
}

// MarshalJSON sends SchemaVersion 1 when it is left 0.
func (f Facts) MarshalJSON() ([]byte, error) {
	type plain Facts
	if f.SchemaVersion == 0 {
		f.SchemaVersion = 1
	}
	return json.Marshal(plain(f))
}

// FactsProfile is the business profile. Every field is sent; text fields
// may be empty.
type FactsProfile struct {
	Timezone     string   `json:"timezone"`     // at most 100 characters
	Services     []string `json:"services"`     // at most 20, each 1-120 characters
	ServiceArea  string   `json:"serviceArea"`  // at most 500
	Hours        string   `json:"hours"`        // at most 1000
	Instructions string   `json:"instructions"` // at most 3000
	Website      string   `json:"website"`      // absolute URI (at most 1000) or empty
	ReviewURL    string   `json:"reviewUrl"`    // absolute URI (at most 1000) or empty
}

// MarshalJSON sends nil Services as an empty array.
func (p FactsProfile) MarshalJSON() ([]byte, error) {
	type plain FactsProfile
	p.Services = orEmpty(p.Services)
	return json.Marshal(plain(p))
}

// Discovery holds what was learned about the business. Every field is sent
// (nil slices as empty arrays, a nil PrimaryLocationID as null).
type Discovery struct {
	Observations      []Observation `json:"observations"` // at most 150
	Locations         []Location    `json:"locations"`    // at most 20
	PrimaryLocationID *string       `json:"primaryLocationId"`
	Tools             []Tool        `json:"tools"` // at most 30
}

// MarshalJSON sends nil slices as empty arrays.
func (d Discovery) MarshalJSON() ([]byte, error) {
	type plain Discovery
	d.Observations, d.Locations, d.Tools = orEmpty(d.Observations), orEmpty(d.Locations), orEmpty(d.Tools)
	return json.Marshal(plain(d))
}

// ObservationState is how sure an observation is.
type ObservationState string

// Observation states.
const (
	ObservationUnknown        ObservationState = "unknown"
	ObservationSuggestion     ObservationState = "suggestion"
	ObservationConflict       ObservationState = "conflict"
	ObservationOwnerConfirmed ObservationState = "owner_confirmed"
)

// OwnerRole is who owns an observation.
type OwnerRole string

// Owner roles of observations.
const (
	OwnerRoleClientOwner    OwnerRole = "client_owner"
	OwnerRoleAgencyOperator OwnerRole = "agency_operator"
	OwnerRoleProvider       OwnerRole = "provider"
)

// Observation is one fact observed about the business.
type Observation struct {
	Field      string           `json:"field"` // 1-120 characters
	Value      ObservationValue `json:"value"`
	SourceRef  string           `json:"sourceRef"`  // 1-300 characters
	ObservedAt *time.Time       `json:"observedAt"` // null when unknown
	State      ObservationState `json:"state"`
	Revision   string           `json:"revision"` // 64 lowercase hex
	OwnerRole  OwnerRole        `json:"ownerRole"`
}

// ObservationValue is an observed value: a string (at most 3000
// characters), a number, a boolean, null, or up to 30 strings (at most 500
// characters each). Build one with StringValue, NumberValue, BoolValue,
// ListValue or NullValue; the zero value is null.
type ObservationValue struct{ raw json.RawMessage }

// StringValue is a text observation.
func StringValue(s string) ObservationValue { return mustValue(s) }

// NumberValue is a numeric observation.
func NumberValue(f float64) ObservationValue { return mustValue(f) }

// BoolValue is a yes/no observation.
func BoolValue(b bool) ObservationValue { return mustValue(b) }

// ListValue is a list of strings.
func ListValue(items ...string) ObservationValue { return mustValue(orEmpty(items)) }

// NullValue is an observation without a value.
func NullValue() ObservationValue { return ObservationValue{} }

func mustValue(v any) ObservationValue {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("agency: encoding an observation value: %v", err))
	}
	return ObservationValue{raw: b}
}

// IsNull reports whether the value is null.
func (v ObservationValue) IsNull() bool { return len(v.raw) == 0 || string(v.raw) == "null" }

// Decode decodes the value into dst (a *string, *float64, *bool or
// *[]string).
func (v ObservationValue) Decode(dst any) error {
	if v.IsNull() {
		return nil
	}
	return json.Unmarshal(v.raw, dst)
}

// MarshalJSON implements json.Marshaler.
func (v ObservationValue) MarshalJSON() ([]byte, error) {
	if v.IsNull() {
		return []byte("null"), nil
	}
	return v.raw, nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *ObservationValue) UnmarshalJSON(b []byte) error {
	v.raw = append(json.RawMessage(nil), b...)
	return nil
}

// Location is one location of the business.
type Location struct {
	ID          string   `json:"id"`          // 1-100 characters
	Label       string   `json:"label"`       // 1-120
	ServiceArea string   `json:"serviceArea"` // 1-500
	Languages   []string `json:"languages"`   // 1-10, each at most 60
	Timezone    string   `json:"timezone"`    // at most 100
	ReviewURL   string   `json:"reviewUrl"`   // absolute URI or empty
}

// ToolPurpose is what a tool of the business is for.
type ToolPurpose string

// Tool purposes.
const (
	PurposeVoice     ToolPurpose = "voice"
	PurposeRecovery  ToolPurpose = "recovery"
	PurposeReviews   ToolPurpose = "reviews"
	PurposeEmail     ToolPurpose = "email"
	PurposeCRM       ToolPurpose = "crm"
	PurposeBooking   ToolPurpose = "booking"
	PurposeReporting ToolPurpose = "reporting"
)

// ToolDecision is what to do with a tool.
type ToolDecision string

// Tool decisions.
const (
	DecisionUnknown   ToolDecision = "unknown"
	DecisionRetain    ToolDecision = "retain"
	DecisionIntegrate ToolDecision = "integrate"
	DecisionCoexist   ToolDecision = "coexist"
	DecisionReplace   ToolDecision = "replace"
)

// Executor is who runs a tool's job after installation. ExecutorKai is part
// of the interface as written.
type Executor string

// Executors.
const (
	ExecutorUnknown  Executor = "unknown"
	ExecutorKai      Executor = "kai"
	ExecutorExisting Executor = "existing"
	ExecutorHuman    Executor = "human"
)

// Tool is a tool the business uses today.
type Tool struct {
	Name          string       `json:"name"` // 1-120 characters
	Purpose       ToolPurpose  `json:"purpose"`
	Decision      ToolDecision `json:"decision"`
	Executor      Executor     `json:"executor"`
	ConnectionRef *string      `json:"connectionRef"` // a reference (never a secret), at most 200, or null
}

// IntakeCoverage says when the agent takes calls.
type IntakeCoverage struct {
	Timezone   string         `json:"timezone"`
	Schedule   []ScheduleSlot `json:"schedule"`   // at most 21
	AfterHours string         `json:"afterHours"` // 1-1000 characters
}

// MarshalJSON sends a nil Schedule as an empty array.
func (c IntakeCoverage) MarshalJSON() ([]byte, error) {
	type plain IntakeCoverage
	c.Schedule = orEmpty(c.Schedule)
	return json.Marshal(plain(c))
}

// ScheduleSlot is one covered slot of a day.
type ScheduleSlot struct {
	Day   int    `json:"day"`   // 0 (Sunday) to 6
	Start string `json:"start"` // HH:MM, 24-hour
	End   string `json:"end"`   // HH:MM, 24-hour
}

// QualificationQuestion is a question the agent asks callers.
type QualificationQuestion struct {
	Question    string `json:"question"`    // 1-300 characters
	Instruction string `json:"instruction"` // 1-500
}

// RoutingKind is where qualified leads go.
type RoutingKind string

// Routing kinds.
const (
	RoutingOwnerNotification RoutingKind = "owner_notification"
	RoutingCRM               RoutingKind = "crm"
)

// Routing routes qualified leads.
type Routing struct {
	Kind             RoutingKind `json:"kind"`
	Destination      string      `json:"destination"`                // 1-500 characters
	DestinationPhone string      `json:"destinationPhone,omitempty"` // E.164
	ConnectionRef    string      `json:"connectionRef,omitempty"`    // at most 200
	Instruction      string      `json:"instruction"`                // 1-1000
}

// FallbackMode is what happens when the agent cannot help.
type FallbackMode string

// Fallback modes.
const (
	FallbackCallback FallbackMode = "callback"
	FallbackTransfer FallbackMode = "transfer"
)

// Fallback is the agent's fallback. A transfer fallback with a phone turns
// on call transfer on the client's agent.
type Fallback struct {
	Mode        FallbackMode `json:"mode"`
	Instruction string       `json:"instruction"`     // 1-1000 characters
	Phone       string       `json:"phone,omitempty"` // E.164
}

// Booking configures appointment booking.
type Booking struct {
	Enabled     bool   `json:"enabled"`
	Instruction string `json:"instruction,omitempty"` // 1-1000 characters
}

// FAQ is a question and its answer.
type FAQ struct {
	Question string `json:"question"` // 1-300 characters
	Answer   string `json:"answer"`   // 1-1000
}

// Reporting configures activity reports.
type Reporting struct {
	Timezone         string   `json:"timezone"`
	RecipientUserIDs []string `json:"recipientUserIds"` // at most 20 uuids
}

// MarshalJSON sends nil RecipientUserIDs as an empty array.
func (r Reporting) MarshalJSON() ([]byte, error) {
	type plain Reporting
	r.RecipientUserIDs = orEmpty(r.RecipientUserIDs)
	return json.Marshal(plain(r))
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
