package agency

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// Installation states, step states and update kinds.
const (
	instAwaitingRoute   = "awaiting_route"
	instAwaitingHandoff = "awaiting_handoff"
	instLive            = "live"

	stepBlocked   = "blocked"
	stepPending   = "pending"
	stepPreviewed = "previewed"
	stepApproved  = "approved"

	updateFactsChange = "facts_change"
	updateCareLaunch  = "care_launch"
)

// routeParts are the facts parts a route receipt shows: applying a change
// to one of them sends an approved route receipt (and the handoff) back to
// review.
var routeParts = []string{"routing", "fallback", "intakeCoverage"}

// scenarios are the test scenarios run_scenarios knows, each passing when
// the client's facts cover it.
var scenarios = map[string]func(facts map[string]json.RawMessage) (bool, string){
	"after_hours": func(f map[string]json.RawMessage) (bool, string) {
		return covered(f, "intakeCoverage", "the caller is told the after-hours handling", "the facts have no intakeCoverage")
	},
	"booking": func(f map[string]json.RawMessage) (bool, string) {
		var b struct {
			Enabled bool `json:"enabled"`
		}
		_ = json.Unmarshal(f["booking"], &b)
		if b.Enabled {
			return true, "the agent books an appointment"
		}
		return false, "booking is not enabled in the facts"
	},
	"emergency": func(f map[string]json.RawMessage) (bool, string) {
		return covered(f, "fallback", "the agent follows the fallback", "the facts have no fallback")
	},
	"lead_capture": func(f map[string]json.RawMessage) (bool, string) {
		return covered(f, "routing", "the lead is routed", "the facts have no routing")
	},
	"pricing_question": func(f map[string]json.RawMessage) (bool, string) {
		var faqs []json.RawMessage
		_ = json.Unmarshal(f["faqs"], &faqs)
		if len(faqs) > 0 {
			return true, "the agent answers from the FAQs"
		}
		return false, "the facts have no FAQs"
	},
	"wrong_number": func(map[string]json.RawMessage) (bool, string) {
		return true, "the agent ends the call politely"
	},
}

// covered is a scenario that passes when the facts have part.
func covered(f map[string]json.RawMessage, part, yes, no string) (bool, string) {
	if len(f[part]) > 0 {
		return true, yes
	}
	return false, no
}

// routeStep and handoffStep are the two reviewed steps of an installation:
// the handoff is reviewed once the route receipt is approved.
var (
	routeStep = &installStep{name: "routeReceipt", label: "route receipt",
		step: func(i *store.Installation) *store.InstallStep { return &i.Route }, content: routeContent,
		onApprove: func(i *store.Installation) {
			if i.Handoff.State == stepBlocked {
				i.Handoff.State = stepPending
			}
			i.State = instAwaitingHandoff
		}}
	handoffStep = &installStep{name: "handoff", label: "handoff",
		step: func(i *store.Installation) *store.InstallStep { return &i.Handoff }, content: handoffContent,
		requires: func(i *store.Installation) *domain.Error {
			if i.Route.State != stepApproved {
				return errState("the route receipt is %s; approve it before the handoff", i.Route.State)
			}
			return nil
		},
		onApprove: func(i *store.Installation) { i.State = instLive }}
)

// installationCommands are the commands of POST /v1/agency-installations.
func (s *Service) installationCommands() map[string]agencyCommand {
	return map[string]agencyCommand{
		"preview_route_receipt": {input: stepInputOf(routeStep, false)},
		"approve_route_receipt": {input: stepInputOf(routeStep, true)},
		"preview_handoff":       {input: stepInputOf(handoffStep, false)},
		"approve_handoff":       {input: stepInputOf(handoffStep, true)},
		"resolve_update":        {input: inputOf[resolveUpdateInput]},
		"run_scenarios":         {input: inputOf[runScenariosInput], scopes: []voiceagent.Scope{voiceagent.ScopeEvalsWrite}},
	}
}

// installRef is the part every installation command has.
type installRef struct {
	PartnerID        string `json:"partnerId"`
	InstallationID   string `json:"installationId"`
	ExpectedRevision string `json:"expectedRevision"`
	Fingerprint      string `json:"fingerprint"`
}

// installation resolves an installation command: an admin, or an operator
// assigned to the client; the expectedRevision guard.
func (c *call) installation(tx *platform.Tx, ref installRef) (*store.Installation, error) {
	pt, err := c.member(tx, ref.PartnerID, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	inst, ok := tx.Installations.Get(ref.InstallationID)
	if !ok || inst.Owner != pt.ID {
		return nil, domain.NotFound("installation not found: " + ref.InstallationID)
	}
	if _, err := requireClient(tx, c.by.UserID, pt, inst.BusinessID); err != nil {
		return nil, err
	}
	if e := checkRevision(ref.ExpectedRevision, inst.Revision); e != nil {
		return nil, e
	}
	return inst, nil
}

// bump gives an installation a new revision (64 hex) after a change.
func (s *Service) bump(inst *store.Installation, now time.Time) {
	inst.Revision, inst.UpdatedAt = s.IDs.Token(32), now.UTC()
}

// installStep describes a reviewed step: the route receipt or the handoff.
type installStep struct {
	name, label string
	step        func(*store.Installation) *store.InstallStep
	content     func(*platform.Tx, *store.Installation) any
	requires    func(*store.Installation) *domain.Error
	onApprove   func(*store.Installation)
}

// stepInput is the input of a command on a reviewed step: the step it
// reviews and the command's body.
type stepInput struct {
	installRef
	step *installStep
}

// stepInputOf returns the new inputs of the commands on step: preview, or
// approve with approve set.
func stepInputOf(step *installStep, approve bool) func() input {
	if approve {
		return func() input { return &approveStepInput{step: step} }
	}
	return func() input { return &previewStepInput{step: step} }
}

// previewStepInput is the input of preview_route_receipt and
// preview_handoff.
type previewStepInput stepInput

func (in previewStepInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.previewStep(tx, c, in)
}

// previewStep computes a step's content and fingerprint (an optional
// fingerprint in the command must match it) and marks the step previewed.
func (s *Service) previewStep(tx *platform.Tx, c *call, in previewStepInput) (map[string]any, error) {
	spec := in.step
	inst, err := c.installation(tx, in.installRef)
	if err != nil {
		return nil, err
	}
	if spec.requires != nil {
		if e := spec.requires(inst); e != nil {
			return nil, e
		}
	}
	step := spec.step(inst)
	if step.State == stepApproved {
		return nil, errState("the %s is already approved", spec.label)
	}
	content := json.RawMessage(jsonview.MustMarshal(spec.content(tx, inst)))
	fp := fingerprint(content)
	if in.Fingerprint != "" {
		if e := checkFingerprint(in.Fingerprint, fp); e != nil {
			return nil, e
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	step.State, step.Content, step.Fingerprint, step.PreviewedAt = stepPreviewed, canonicalJSON(content), fp, c.now.UTC()
	s.bump(inst, c.now)
	return s.receipt(c, map[string]any{"installation": installationView(tx, inst), "fingerprint": fp}), nil
}

// approveStepInput is the input of approve_route_receipt and
// approve_handoff.
type approveStepInput stepInput

func (in approveStepInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.approveStep(tx, c, in)
}

// approveStep approves exactly what was previewed: the step must be
// previewed, an optional fingerprint must be the previewed one, and the
// content must not have changed since.
func (s *Service) approveStep(tx *platform.Tx, c *call, in approveStepInput) (map[string]any, error) {
	spec := in.step
	inst, err := c.installation(tx, in.installRef)
	if err != nil {
		return nil, err
	}
	step := spec.step(inst)
	if step.State != stepPreviewed {
		return nil, errState("the %s is %s; preview it, then approve what was previewed", spec.label, step.State)
	}
	if in.Fingerprint != "" {
		if e := checkFingerprint(in.Fingerprint, step.Fingerprint); e != nil {
			return nil, e
		}
	}
	if now := fingerprint(json.RawMessage(jsonview.MustMarshal(spec.content(tx, inst)))); now != step.Fingerprint {
		return nil, domain.New(voiceagent.CodeFingerprintMismatch,
			"the "+spec.label+" changed since it was previewed (now "+now+"): preview it again")
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	step.State, step.ApprovedAt, step.ApprovedBy = stepApproved, c.now.UTC(), c.by.UserID
	spec.onApprove(inst)
	s.bump(inst, c.now)
	return s.receipt(c, map[string]any{"installation": installationView(tx, inst)}), nil
}

// choiceValues are the values a choice of an update kind may take.
var choiceValues = map[string][]string{
	updateFactsChange: {"apply", "keep"},
	updateCareLaunch:  {"queue", "hold"},
}

// resolveUpdateInput is the input of resolve_update.
type resolveUpdateInput struct {
	installRef
	UpdateID string         `json:"updateId"`
	Choices  map[string]any `json:"choices"`
}

func (in resolveUpdateInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.resolveUpdate(tx, c, in)
}

// resolveUpdate resolves a pending update with a choice for each of its
// parts, at the update's fingerprint: a facts change applies the parts
// chosen "apply", a care launch queues or holds the care package (which
// needs the scope sms:write).
func (s *Service) resolveUpdate(tx *platform.Tx, c *call, in resolveUpdateInput) (map[string]any, error) {
	inst, err := c.installation(tx, in.installRef)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(inst.Updates, func(u *store.PendingUpdate) bool { return u.ID == in.UpdateID })
	if i < 0 {
		return nil, domain.NotFound("update not found: " + in.UpdateID)
	}
	u := inst.Updates[i]
	if u.State != stepPending {
		return nil, errState("the update is already %s", u.State)
	}
	if e := checkFingerprint(in.Fingerprint, u.Fingerprint); e != nil {
		return nil, e
	}
	choices, apiErr := checkChoices(u, in.Choices)
	if apiErr != nil {
		return nil, apiErr
	}
	if u.Kind == updateCareLaunch && !c.by.Has(voiceagent.ScopeSMSWrite) {
		return nil, domain.Forbidden("launching the care package needs the scope " + string(voiceagent.ScopeSMSWrite))
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	switch u.Kind {
	case updateCareLaunch:
		inst.Care.State, inst.Care.DecidedAt = map[string]string{"queue": "queued", "hold": "held"}[choices["launch"]], c.now.UTC()
	default:
		s.applyFactsChange(tx, c.now, inst, u, choices)
	}
	u.State, u.Choices, u.ResolvedAt, u.ResolvedBy = "resolved", choices, c.now.UTC(), c.by.UserID
	s.bump(inst, c.now)
	return s.receipt(c, map[string]any{"installation": installationView(tx, inst), "update": updateView(u)}), nil
}

// checkChoices checks that choices names every part of the update, and
// nothing else, with an allowed value.
func checkChoices(u *store.PendingUpdate, choices map[string]any) (map[string]string, *domain.Error) {
	allowed := choiceValues[u.Kind]
	out := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(choices)) {
		if !slices.Contains(u.Parts, k) {
			return nil, domain.InvalidField("/choices/"+k, "is not a part of this update (parts: %s)", strings.Join(u.Parts, ", "))
		}
		v, _ := choices[k].(string)
		if !slices.Contains(allowed, v) {
			return nil, domain.InvalidField("/choices/"+k, "must be %s", strings.Join(allowed, " or "))
		}
		out[k] = v
	}
	for _, p := range u.Parts {
		if _, ok := out[p]; !ok {
			return nil, domain.InvalidField("/choices/"+p, "a choice is required: %s", strings.Join(allowed, " or "))
		}
	}
	return out, nil
}

// applyFactsChange applies the parts chosen "apply" to the installation's
// facts; a changed route part sends the route receipt and handoff back to
// review.
func (s *Service) applyFactsChange(tx *platform.Tx, now time.Time, inst *store.Installation, u *store.PendingUpdate, choices map[string]string) {
	cur, next := factsParts(inst.Facts), factsParts(u.Proposed)
	var applied []string
	for _, p := range u.Parts {
		if choices[p] != "apply" {
			continue
		}
		if v, ok := next[p]; ok {
			cur[p] = v
		} else {
			delete(cur, p)
		}
		applied = append(applied, p)
	}
	if len(applied) == 0 {
		return
	}
	raw, _ := json.Marshal(cur)
	inst.Facts = canonicalJSON(raw)
	inst.FactsRevision = fingerprint(inst.Facts)
	s.applyFactsToAgent(tx, now, inst.AgentID, inst.Facts)
	if slices.ContainsFunc(applied, func(p string) bool { return slices.Contains(routeParts, p) }) {
		inst.Route = store.InstallStep{State: stepPending}
		inst.Handoff = store.InstallStep{State: stepBlocked}
		inst.State = instAwaitingRoute
	}
}

// runScenariosInput is the input of run_scenarios.
type runScenariosInput struct {
	installRef
	Scenarios []string `json:"scenarios"`
}

func (in runScenariosInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.runScenarios(tx, c, in)
}

// runScenarios runs test scenarios (every known one when none is named)
// against a client's facts and keeps the latest agencyScenarioRunsKept
// runs on the installation.
func (s *Service) runScenarios(tx *platform.Tx, c *call, in runScenariosInput) (map[string]any, error) {
	inst, err := c.installation(tx, in.installRef)
	if err != nil {
		return nil, err
	}
	names := in.Scenarios
	if len(names) == 0 {
		names = slices.Sorted(maps.Keys(scenarios))
	}
	for i, n := range names {
		if scenarios[n] == nil {
			return nil, domain.InvalidField("/scenarios/"+strconv.Itoa(i), "unknown scenario %q (known: %s)",
				n, strings.Join(slices.Sorted(maps.Keys(scenarios)), ", "))
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	facts := factsParts(inst.Facts)
	run := &store.ScenarioRun{ID: s.IDs.UUID(), RanAt: c.now.UTC(), RanBy: c.by.UserID}
	for _, n := range names {
		ok, detail := scenarios[n](facts)
		run.Results = append(run.Results, store.ScenarioResult{Scenario: n, Passed: ok, Detail: detail})
	}
	inst.Scenarios = append(inst.Scenarios, run)
	if len(inst.Scenarios) > agencyScenarioRunsKept {
		inst.Scenarios = inst.Scenarios[len(inst.Scenarios)-agencyScenarioRunsKept:]
	}
	s.bump(inst, c.now)
	return s.receipt(c, map[string]any{"installation": installationView(tx, inst), "scenarioRun": scenarioRunView(run)}), nil
}

// newInstallation installs a client of an enrollment: route receipt to
// review, handoff blocked until then, the facts on the client's agent, and
// with the care package a draft campaign and its launch as a pending
// update.
func (s *Service) newInstallation(tx *platform.Tx, now time.Time, sess *store.EnrollmentSession, v *store.OfferVersion, b *store.Business, a *store.Agent, facts json.RawMessage) *store.Installation {
	inst := tx.Installations.Insert(&store.Installation{
		BusinessID: b.ID, SessionID: sess.ID, OfferVersionID: v.ID, State: instAwaitingRoute,
		Facts: facts, FactsRevision: fingerprint(facts),
		Route: store.InstallStep{State: stepPending}, Handoff: store.InstallStep{State: stepBlocked},
	}, sess.Owner, now)
	if a != nil {
		inst.AgentID = a.ID
		s.applyFactsToAgent(tx, now, a.ID, facts)
	}
	if pkg, ok := versionPackage(v, "care"); ok {
		inst.Care = &store.CarePackage{State: "draft", Version: pkg.Version, Variant: pkg.Variant, PreparedAt: now.UTC()}
		proposed := jsonview.MustMarshal(map[string]any{"carePackage": pkg, "launch": "queue the draft campaign for sending"})
		s.addUpdate(now, inst, updateCareLaunch, []string{"launch"}, proposed)
	}
	s.bump(inst, now)
	tx.InstallationByBusiness[b.ID] = inst
	return inst
}

// addFactsUpdate records new facts for an installed client as a pending
// update naming the parts that differ.
func (s *Service) addFactsUpdate(now time.Time, inst *store.Installation, proposed json.RawMessage) *store.PendingUpdate {
	cur, next := factsParts(inst.Facts), factsParts(proposed)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(next)) {
		if !bytes.Equal(cur[k], next[k]) {
			parts = append(parts, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(cur)) {
		if _, ok := next[k]; !ok {
			parts = append(parts, k)
		}
	}
	slices.Sort(parts)
	u := s.addUpdate(now, inst, updateFactsChange, parts, proposed)
	s.bump(inst, now)
	return u
}

// addUpdate appends a pending update; its fingerprint covers
// {"updateId", "kind", "parts", "proposed"}.
func (s *Service) addUpdate(now time.Time, inst *store.Installation, kind string, parts []string, proposed json.RawMessage) *store.PendingUpdate {
	u := &store.PendingUpdate{ID: s.IDs.UUID(), Kind: kind, State: stepPending, Parts: parts,
		Proposed: canonicalJSON(proposed), CreatedAt: now.UTC()}
	u.Fingerprint = fingerprint(map[string]any{"updateId": u.ID, "kind": u.Kind, "parts": u.Parts, "proposed": u.Proposed})
	inst.Updates = append(inst.Updates, u)
	return u
}

// factsParts splits facts into their top-level parts (canonical JSON each).
func factsParts(facts json.RawMessage) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	_ = json.Unmarshal(facts, &m)
	for k, v := range m {
		m[k] = canonicalJSON(v)
	}
	return m
}

// applyFactsToAgent writes a client's facts into its agent's inbound prompt
// (and transfer settings from a transfer fallback) and syncs the assistant
// at the voice provider.
func (s *Service) applyFactsToAgent(tx *platform.Tx, now time.Time, agentID string, facts json.RawMessage) {
	a, ok := tx.Agents.Get(agentID)
	if !ok {
		return
	}
	var f struct {
		Profile struct {
			Services     []string `json:"services"`
			ServiceArea  string   `json:"serviceArea"`
			Hours        string   `json:"hours"`
			Instructions string   `json:"instructions"`
		} `json:"profile"`
		Faqs []struct {
			Question string `json:"question"`
			Answer   string `json:"answer"`
		} `json:"faqs"`
		Fallback *struct {
			Mode  string `json:"mode"`
			Phone string `json:"phone"`
		} `json:"fallback"`
	}
	_ = json.Unmarshal(facts, &f)
	name := a.Name
	if b, ok := tx.Businesses.Get(a.Owner); ok {
		name = b.Name
	}
	var p strings.Builder
	p.WriteString("You are the friendly intake agent of " + name + ".")
	for _, line := range [][2]string{
		{"Services", strings.Join(f.Profile.Services, ", ")}, {"Service area", f.Profile.ServiceArea},
		{"Hours", f.Profile.Hours}, {"Instructions", f.Profile.Instructions},
	} {
		if line[1] != "" {
			p.WriteString("\n" + line[0] + ": " + line[1])
		}
	}
	for _, q := range f.Faqs {
		p.WriteString("\nQ: " + q.Question + " A: " + q.Answer)
	}
	tx.Agents.Update(a, func(a *store.Agent) {
		a.InboundPrompt, a.UpdatedAt = p.String(), now.UTC()
		if f.Fallback != nil && f.Fallback.Mode == "transfer" && f.Fallback.Phone != "" {
			a.TransferEnabled, a.TransferPhoneNumber = true, f.Fallback.Phone
		}
	})
	s.telephony.SyncAssistant(tx, a)
}

// routeContentJSON is what a route receipt shows and fingerprints (the
// fingerprint is of its canonical JSON, whatever the members' order); an
// absent facts part is null.
type routeContentJSON struct {
	InstallationID string          `json:"installationId"`
	BusinessID     string          `json:"businessId"`
	AgentID        string          `json:"agentId"`
	PhoneNumber    *string         `json:"phoneNumber"`
	Routing        json.RawMessage `json:"routing"`
	Fallback       json.RawMessage `json:"fallback"`
	IntakeCoverage json.RawMessage `json:"intakeCoverage"`
}

// routeContent is what a route receipt shows and fingerprints.
func routeContent(tx *platform.Tx, inst *store.Installation) any {
	f := factsParts(inst.Facts)
	return &routeContentJSON{
		InstallationID: inst.ID, BusinessID: inst.BusinessID, AgentID: inst.AgentID,
		PhoneNumber: agentPhone(tx, inst.AgentID), Routing: f["routing"], Fallback: f["fallback"],
		IntakeCoverage: f["intakeCoverage"],
	}
}

// handoffContentJSON is what a handoff shows and fingerprints (the
// fingerprint is of its canonical JSON, whatever the members' order).
type handoffContentJSON struct {
	InstallationID          string               `json:"installationId"`
	BusinessID              string               `json:"businessId"`
	OwnerUserID             string               `json:"ownerUserId"`
	OwnerEmail              string               `json:"ownerEmail"`
	AgentID                 string               `json:"agentId"`
	PhoneNumber             *string              `json:"phoneNumber"`
	OfferVersionID          string               `json:"offerVersionId"`
	Packages                []store.OfferPackage `json:"packages"`
	RouteReceiptFingerprint string               `json:"routeReceiptFingerprint"`
	CarePackage             *sdk.CarePackage     `json:"carePackage"`
	Reporting               json.RawMessage      `json:"reporting"`
}

// handoffContent is what a handoff shows and fingerprints.
func handoffContent(tx *platform.Tx, inst *store.Installation) any {
	ownerID, ownerEmail := "", ""
	if b, ok := tx.Businesses.Get(inst.BusinessID); ok {
		ownerID = b.OwnerUserID
		if u, ok := tx.Users.Get(ownerID); ok {
			ownerEmail = u.Email
		}
	}
	var packages []store.OfferPackage
	if v, ok := tx.OfferVersions.Get(inst.OfferVersionID); ok {
		packages = v.Packages
	}
	return &handoffContentJSON{
		InstallationID: inst.ID, BusinessID: inst.BusinessID, OwnerUserID: ownerID, OwnerEmail: ownerEmail,
		AgentID: inst.AgentID, PhoneNumber: agentPhone(tx, inst.AgentID), OfferVersionID: inst.OfferVersionID,
		Packages: packages, RouteReceiptFingerprint: inst.Route.Fingerprint, CarePackage: careView(inst.Care),
		Reporting: factsParts(inst.Facts)["reporting"],
	}
}

// agentPhone is the phone number of an agent, nil (null) when it has none
// (or there is no agent).
func agentPhone(tx *platform.Tx, agentID string) *string {
	if a, ok := tx.Agents.Get(agentID); ok {
		return val.Strp(a.PhoneNumber)
	}
	return nil
}

// getAgencyInstallations is GET /v1/agency-installations: a page of
// installations (newest first, 50 a page, after = the last installationId
// seen), or one with ?id=.
func (s *Service) getAgencyInstallations(rc *httpapi.Ctx) (any, error) {
	pt, err := agencyRead(rc, false)
	if err != nil {
		return nil, err
	}
	view := func(inst *store.Installation) *installationJSON { return installationView(rc.Tx, inst) }
	if rc.Query("id") != "" {
		inst, err := getByID(rc, rc.Tx.Installations, pt.ID, "installation")
		if err != nil {
			return nil, err
		}
		return view(inst), nil
	}
	items, more, err := agencyPage(rc, rc.Tx.Installations, pt.ID, agencyInstallationPage, view)
	if err != nil {
		return nil, err
	}
	return map[string]any{"installations": items, "has_more": more, "operations": operationsOf(rc.Tx, pt.ID, "installations")}, nil
}

// installationJSON is an installation as reads and receipts show it, its
// members in the order of the OpenAPI document's Installation.
type installationJSON struct {
	InstallationID string             `json:"installationId"`
	PartnerID      string             `json:"partnerId"`
	BusinessID     string             `json:"businessId"`
	BusinessName   string             `json:"businessName"`
	AgentID        *string            `json:"agentId"`
	PhoneNumber    *string            `json:"phoneNumber"`
	SessionID      string             `json:"sessionId"`
	OfferVersionID string             `json:"offerVersionId"`
	State          string             `json:"state"`
	Revision       string             `json:"revision"`
	FactsRevision  string             `json:"factsRevision"`
	Facts          json.RawMessage    `json:"facts"`
	RouteReceipt   stepJSON           `json:"routeReceipt"`
	Handoff        stepJSON           `json:"handoff"`
	PendingUpdates int                `json:"pendingUpdates"`
	Updates        []updateJSON       `json:"updates"`
	CarePackage    *sdk.CarePackage   `json:"carePackage"`
	ScenarioRuns   []*sdk.ScenarioRun `json:"scenarioRuns"`
	CreatedAt      time.Time          `json:"createdAt"`
	UpdatedAt      time.Time          `json:"updatedAt"`
}

// installationView is an installation as reads and receipts show it.
func installationView(tx *platform.Tx, inst *store.Installation) *installationJSON {
	name := ""
	if b, ok := tx.Businesses.Get(inst.BusinessID); ok {
		name = b.Name
	}
	updates := make([]updateJSON, 0, min(len(inst.Updates), agencyUpdatesShown))
	pending := 0
	for i := len(inst.Updates) - 1; i >= 0; i-- {
		if inst.Updates[i].State == stepPending {
			pending++
		}
		if len(updates) < agencyUpdatesShown {
			updates = append(updates, updateView(inst.Updates[i]))
		}
	}
	runs := make([]*sdk.ScenarioRun, 0, len(inst.Scenarios))
	for i := len(inst.Scenarios) - 1; i >= 0; i-- {
		runs = append(runs, scenarioRunView(inst.Scenarios[i]))
	}
	return &installationJSON{
		InstallationID: inst.ID, PartnerID: inst.Owner, BusinessID: inst.BusinessID, BusinessName: name,
		AgentID: val.Strp(inst.AgentID), PhoneNumber: agentPhone(tx, inst.AgentID), SessionID: inst.SessionID,
		OfferVersionID: inst.OfferVersionID, State: inst.State, Revision: inst.Revision,
		FactsRevision: inst.FactsRevision, Facts: inst.Facts,
		RouteReceipt: stepView(inst.Route), Handoff: stepView(inst.Handoff),
		PendingUpdates: pending, Updates: updates, CarePackage: careView(inst.Care), ScenarioRuns: runs,
		CreatedAt: inst.CreatedAt, UpdatedAt: inst.UpdatedAt,
	}
}

// stepJSON is a route receipt or handoff as installations show it (the
// OpenAPI document's InstallStep): null members until it is previewed and
// approved.
type stepJSON struct {
	State       string          `json:"state"`
	Fingerprint *string         `json:"fingerprint"`
	Content     json.RawMessage `json:"content"`
	PreviewedAt *time.Time      `json:"previewedAt"`
	ApprovedAt  *time.Time      `json:"approvedAt"`
	ApprovedBy  *string         `json:"approvedBy"`
}

// stepView is a route receipt or handoff as installations show it.
func stepView(tx store.InstallStep) stepJSON {
	var content json.RawMessage
	if len(tx.Content) > 0 {
		content = tx.Content
	}
	return stepJSON{
		State: tx.State, Fingerprint: val.Strp(tx.Fingerprint), Content: content,
		PreviewedAt: stampOrNull(tx.PreviewedAt), ApprovedAt: stampOrNull(tx.ApprovedAt), ApprovedBy: val.Strp(tx.ApprovedBy),
	}
}

// updateJSON is a pending (or resolved) update as installations and the
// resolve_update receipt show it (the OpenAPI document's
// InstallationUpdate): choices, resolvedAt and resolvedBy are null until
// it is resolved.
type updateJSON struct {
	UpdateID    string            `json:"updateId"`
	Kind        string            `json:"kind"`
	State       string            `json:"state"`
	Parts       []string          `json:"parts"`
	Proposed    json.RawMessage   `json:"proposed"`
	Fingerprint string            `json:"fingerprint"`
	Choices     map[string]string `json:"choices"`
	CreatedAt   time.Time         `json:"createdAt"`
	ResolvedAt  *time.Time        `json:"resolvedAt"`
	ResolvedBy  *string           `json:"resolvedBy"`
}

// updateView is a pending (or resolved) update as installations show it.
func updateView(u *store.PendingUpdate) updateJSON {
	return updateJSON{
		UpdateID: u.ID, Kind: u.Kind, State: u.State, Parts: u.Parts, Proposed: u.Proposed,
		Fingerprint: u.Fingerprint, Choices: u.Choices, CreatedAt: u.CreatedAt,
		ResolvedAt: stampOrNull(u.ResolvedAt), ResolvedBy: val.Strp(u.ResolvedBy),
	}
}

// careView is the care package of an installation, nil (null) without one.
func careView(c *store.CarePackage) *sdk.CarePackage {
	if c == nil {
		return nil
	}
	return &sdk.CarePackage{State: c.State, Version: c.Version, Variant: c.Variant, PreparedAt: c.PreparedAt, DecidedAt: timeOrNil(c.DecidedAt)}
}

// scenarioRunView is a run of test scenarios.
func scenarioRunView(r *store.ScenarioRun) *sdk.ScenarioRun {
	var results []sdk.ScenarioResult
	if r.Results != nil {
		results = make([]sdk.ScenarioResult, len(r.Results))
		for i, x := range r.Results {
			results[i] = sdk.ScenarioResult(x)
		}
	}
	return &sdk.ScenarioRun{RunID: r.ID, Results: results, RanAt: r.RanAt, RanBy: r.RanBy}
}
