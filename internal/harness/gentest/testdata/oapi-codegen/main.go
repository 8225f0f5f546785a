// Command scenario drives the mock server with the client that oapi-codegen
// generated from the served OpenAPI document (package voiceagent, written
// next to this file by the test): list agents, create a call, advance the
// clock, read the call, page through leads, validate a communication run
// and sign up (the two union request bodies). It prints what it saw as
// JSON for the test to check.
//
// Environment: VOICEAGENT_BASE_URL (ends with /api), VOICEAGENT_API_KEY,
// VOICEAGENT_MOCK_ADMIN_URL (ends with /_mock), VOICEAGENT_BUSINESS_ID,
// VOICEAGENT_CALL_TO, VOICEAGENT_SIGNUP_EMAIL.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net/http"
	"net/url"
	"os"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"example.com/oapiclient/voiceagent"
)

// result is what the scenario prints.
type result struct {
	Agents          []string `json:"agents"`
	CallID          string   `json:"call_id"`
	CreatedStatus   string   `json:"created_status"`
	CallStatus      string   `json:"call_status"`
	CallDuration    int      `json:"call_duration"`
	Transcript      string   `json:"transcript"`
	Leads           []string `json:"leads"`
	LeadPages       int      `json:"lead_pages"`
	NotFoundCode    string   `json:"not_found_code"`
	NotFoundRequest string   `json:"not_found_request_id"`
	RunValid        bool     `json:"run_valid"`
	RunTouches      int      `json:"run_touches"`
	SignupChallenge string   `json:"signup_challenge"`
	SignupBusiness  string   `json:"signup_business_id"`
}

func main() {
	log.SetFlags(0)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	key := os.Getenv("VOICEAGENT_API_KEY")
	c, err := voiceagent.NewClientWithResponses(os.Getenv("VOICEAGENT_BASE_URL"),
		voiceagent.WithRequestEditorFn(func(_ context.Context, req *http.Request) error {
			req.Header.Set("Authorization", "Bearer "+key)
			return nil
		}))
	check(err)
	var out result

	// List agents: without id the answer is the list form of the union.
	agents, err := c.GetAgentsWithResponse(ctx, nil)
	check(err)
	expect(agents.StatusCode(), http.StatusOK, agents.Body)
	list, err := agents.JSON200.AsAgentList()
	check(err)
	for _, a := range list.Agents {
		out.Agents = append(out.Agents, a.Id.String())
	}
	if len(list.Agents) == 0 {
		log.Fatal("no agent listed")
	}

	// Create a call.
	idem := "scenario-call-1"
	created, err := c.CreateCallWithResponse(ctx, &voiceagent.CreateCallParams{IdempotencyKey: &idem},
		voiceagent.CreateCallJSONRequestBody{AgentId: list.Agents[0].Id.String(), To: os.Getenv("VOICEAGENT_CALL_TO")})
	check(err)
	expect(created.StatusCode(), http.StatusCreated, created.Body)
	out.CallID = created.JSON201.Id.String()
	out.CreatedStatus = string(created.JSON201.Status)

	// Advance the simulated clock past the longest simulated call.
	advance(ctx, os.Getenv("VOICEAGENT_MOCK_ADMIN_URL"), os.Getenv("VOICEAGENT_BUSINESS_ID"), 900)

	// Read the call: with id the answer is the detail form of the union.
	id := created.JSON201.Id
	got, err := c.GetCallsWithResponse(ctx, &voiceagent.GetCallsParams{Id: &id})
	check(err)
	expect(got.StatusCode(), http.StatusOK, got.Body)
	call, err := got.JSON200.AsCallDetail()
	check(err)
	out.CallStatus = call.Status
	out.CallDuration = call.Duration
	if call.Transcript != nil {
		out.Transcript = *call.Transcript
	}

	// Page through the leads, three at a time, with the created_at cursor.
	limit := 3
	params := &voiceagent.GetLeadsParams{Limit: &limit}
	for {
		page, err := c.GetLeadsWithResponse(ctx, params)
		check(err)
		expect(page.StatusCode(), http.StatusOK, page.Body)
		leads, err := page.JSON200.AsLeadList()
		check(err)
		out.LeadPages++
		for _, l := range leads.Leads {
			out.Leads = append(out.Leads, l.Id.String())
		}
		if !leads.HasMore || len(leads.Leads) == 0 || out.LeadPages > 100 {
			break
		}
		after := leads.Leads[len(leads.Leads)-1].CreatedAt
		params.After = &after
	}

	// An error answer decodes into the error format.
	missing := list.Agents[0].Id // an agent id is no call id
	nf, err := c.GetCallsWithResponse(ctx, &voiceagent.GetCallsParams{Id: &missing})
	check(err)
	expect(nf.StatusCode(), http.StatusNotFound, nf.Body)
	out.NotFoundCode = string(nf.JSON404.Error.Code) // the document's ErrorCode enum: a type of its own
	out.NotFoundRequest = nf.HTTPResponse.Header.Get("X-Request-Id")

	// Validate a communication run: the body is a union (a run, or any
	// JSON), built with its constructor.
	var biz openapi_types.UUID
	check(biz.UnmarshalText([]byte(os.Getenv("VOICEAGENT_BUSINESS_ID"))))
	var run voiceagent.CommunicationRunValidateRequest
	check(run.FromCommunicationRunCreate(voiceagent.CommunicationRunCreate{
		BusinessId: biz, ExternalRef: "generated-run-1",
		Touches: []voiceagent.CommunicationRunCreateTouch{{
			TouchId: "t1", Channel: "call", ScheduledAt: time.Now().Add(24 * time.Hour).UTC(),
			Target: voiceagent.CommunicationRunCreateTarget{Phone: os.Getenv("VOICEAGENT_CALL_TO")},
		}},
	}))
	validated, err := c.ValidateCommunicationRunWithResponse(ctx, nil, run)
	check(err)
	expect(validated.StatusCode(), http.StatusOK, validated.Body)
	out.RunValid, out.RunTouches = validated.JSON200.Valid, validated.JSON200.Touches
	if !out.RunValid {
		log.Printf("the run is not valid: %s", validated.Body)
	}

	// Sign up: the request step, the code from the outbox, the verify
	// step; each body is a variant of the signup union.
	email := os.Getenv("VOICEAGENT_SIGNUP_EMAIL")
	var step voiceagent.SignupRequest
	check(step.FromSignupOtpRequest(voiceagent.SignupOtpRequest{BusinessName: "Generated Signup", Email: openapi_types.Email(email)}))
	sent, err := c.SignupWithResponse(ctx, nil, step)
	check(err)
	expect(sent.StatusCode(), http.StatusOK, sent.Body)
	challenge, err := sent.JSON200.AsSignupOtpSent()
	check(err)
	out.SignupChallenge = challenge.ChallengeId
	var verify voiceagent.SignupRequest
	check(verify.FromSignupOtpVerify(voiceagent.SignupOtpVerify{
		BusinessName: "Generated Signup", Email: openapi_types.Email(email),
		ChallengeId: challenge.ChallengeId, OtpCode: otpCode(ctx, os.Getenv("VOICEAGENT_MOCK_ADMIN_URL"), email),
	}))
	made, err := c.SignupWithResponse(ctx, nil, verify)
	check(err)
	expect(made.StatusCode(), http.StatusCreated, made.Body)
	out.SignupBusiness = made.JSON201.BusinessId.String()

	check(json.NewEncoder(os.Stdout).Encode(out))
}

// otpCode reads the newest signup code sent to email from the outbox
// (admin API, not part of the generated client).
func otpCode(ctx context.Context, adminURL, email string) string {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, adminURL+"/outbox?to="+url.QueryEscape(email), nil)
	check(err)
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer resp.Body.Close()
	expect(resp.StatusCode, http.StatusOK, nil)
	var box struct {
		Messages []struct {
			OTPCode string `json:"otp_code"`
		} `json:"messages"`
	}
	check(json.NewDecoder(resp.Body).Decode(&box))
	for i := len(box.Messages) - 1; i >= 0; i-- {
		if box.Messages[i].OTPCode != "" {
			return box.Messages[i].OTPCode
		}
	}
	log.Fatalf("no code was sent to %s", email)
	return ""
}

// advance moves the simulated clock by seconds, only the business's tenant's
// when businessID is set (admin API, not part of the generated client).
func advance(ctx context.Context, adminURL, businessID string, seconds int) {
	args := map[string]any{"seconds": seconds}
	if businessID != "" {
		args["business_id"] = businessID
	}
	body, _ := json.Marshal(args)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, adminURL+"/clock/advance", bytes.NewReader(body))
	check(err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	check(err)
	defer resp.Body.Close()
	expect(resp.StatusCode, http.StatusOK, nil)
}

func expect(got, want int, body []byte) {
	if got != want {
		log.Fatalf("status %d, want %d: %s", got, want, body)
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
