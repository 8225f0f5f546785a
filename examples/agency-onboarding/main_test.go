package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestAgencyOnboardingAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		`Bootstrapped agency "Brightline Agency" (partner `, "the caller is its admin",
		"Saved offer ", ": drafted",
		"Previewed it: previewed, fingerprint ",
		"Published it: published, version ",
		"Created enrollment session ", "(draft); an owner link was emailed to joe@joesplumbing.example",
		"Preview: entry 0 (crm-4711) will create_client",
		"The owner opens the email ",
		"The owner claimed the session",
		"Approving another fingerprint is refused: fingerprint_mismatch",
		"The owner approved fingerprint ", "session approved, approval ",
		"Enrolled (HTTP 202): session enrolled",
		"client crm-4711: enrolled, business ",
		"Installation ", ": awaiting_route, agent ", "answering +1555",
		"Approved the route receipt (leads go to joe@joesplumbing.example): installation awaiting_handoff",
		"Approved the handoff to joe@joesplumbing.example: installation live",
		"scenario after_hours       passed",
		"scenario wrong_number      passed",
		"Done.",
	)
	assert.NotContains(t, s, "FAILED")
	assert.NotContains(t, s, "token=", "the owner link's token is never printed")
}

// The agency and the owner as two accounts of a service given by URL and
// keys; the owner pastes the emailed link on standard input.
func TestAgencyOnboardingAgainstAGivenService(t *testing.T) {
	srv := mockserver.Start(t)
	ann, err := srv.NewAccount(mockserver.AccountOptions{Email: "ann@agency.example"})
	require.NoError(t, err)
	owner, err := srv.NewAccount(mockserver.AccountOptions{Email: "owner@client.example"})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, ann.APIKey)
	t.Setenv("VOICEAGENT_OWNER_API_KEY", owner.APIKey)
	t.Setenv("AGENCY_OWNER_EMAIL", "owner@client.example")

	pr, pw := io.Pipe()
	stdin = pr
	t.Cleanup(func() { stdin = nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() {
		msg, ok := srv.WaitOutbox(ctx, "owner@client.example", func(m mockserver.OutboxMessage) bool { return m.Link != "" })
		if ok {
			_, _ = io.WriteString(pw, msg.Link+"\n")
		}
		pw.Close()
	}()

	var out bytes.Buffer
	require.NoError(t, run(ctx, &out))
	exampletest.AssertSteps(t, out.String(),
		"Using "+srv.URL,
		"Bootstrapped agency ",
		"Published it: published",
		"an owner link was emailed to owner@client.example",
		"Paste the owner link emailed to owner@client.example:",
		"The owner claimed the session",
		"Enrolled (HTTP 202)",
		"installation live",
		"Done.",
	)

	// A second run finds the agency already there and onboards another
	// session into it.
	stdin = strings.NewReader("")
	out.Reset()
	err = run(ctx, &out)
	require.Error(t, err, "no link on standard input this time")
	assert.Contains(t, err.Error(), "reading the owner link")
	assert.Contains(t, out.String(), "Already an agency: Brightline Agency")

	c := ann.Client()
	n := 0
	for inst, err := range c.Agency.Installations.All(ctx, nil) {
		require.NoError(t, err)
		assert.Equal(t, agency.InstallationLive, inst.State)
		n++
	}
	assert.Equal(t, 1, n)
}

func TestAgencyOnboardingNeedsTheOwnerAgainstAService(t *testing.T) {
	srv := mockserver.Start(t)
	ann, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, ann.APIKey)
	t.Setenv("VOICEAGENT_OWNER_API_KEY", "")
	t.Setenv("AGENCY_OWNER_EMAIL", "")
	err = run(context.Background(), &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "VOICEAGENT_OWNER_API_KEY")
}
