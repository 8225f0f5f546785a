package signup_test

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
)

// mock starts an in-process mock server and returns it with a client for it.
func mock() (*mockserver.Server, *client.Client, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	c := client.New("", voiceagent.WithBaseURL(hs.URL+"/api"))
	return srv, c, func() { hs.Close(); srv.Close() }
}

// The email verification flow: request a code, verify it, and turn the
// magic link into a dashboard session.
func ExampleService_Verify() {
	srv, c, stop := mock()
	defer stop()
	ctx := context.Background()

	req := &signup.RequestParams{Fields: signup.Fields{BusinessName: "Acme Plumbing", Email: "owner@acme.example"}}
	ch, err := c.Signup.Request(ctx, req)
	if err != nil {
		panic(err)
	}
	fmt.Println(ch.Status, ch.ExpiresInSeconds)

	// The code arrives by email; the mock keeps it in its outbox.
	code := srv.Outbox("owner@acme.example")[0].OTPCode
	res, err := c.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: code})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, strings.HasPrefix(res.APIKey, "voiceagent_live_"), len(res.Scopes))

	session, err := c.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.HasPrefix(session, "sess_"))
	// Output:
	// otp_sent 600
	// provisioned true 8
	// true
}

// Payment mode: the first call says what to pay; the second carries it.
func ExampleService_Pay() {
	_, c, stop := mock()
	defer stop()
	ctx := context.Background()

	p := &signup.PaymentParams{Fields: signup.Fields{BusinessName: "Paid Co", Email: "owner@paid.example"}, PlanID: "growth"}
	_, err := c.Signup.Pay(ctx, p)
	var pr *signup.PaymentRequiredError
	if errors.As(err, &pr) {
		fmt.Println(pr.Requirements.PlanID, pr.Requirements.AmountCents, pr.Requirements.Currency)
	}

	p.Payment = "x402 payment payload"
	res, err := c.Signup.Pay(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Status, res.PlanID)
	// Output:
	// growth 14900 USD
	// provisioned growth
}

// A partly failed provisioning still answers the key: keep it and resume.
func ExampleProvisioningFailedError() {
	srv, c, stop := mock()
	defer stop()
	ctx := context.Background()

	email := "owner@provisioning-fails.example"
	req := &signup.RequestParams{Fields: signup.Fields{BusinessName: "Unlucky", Email: email}}
	ch, _ := c.Signup.Request(ctx, req)
	code := srv.Outbox(email)[0].OTPCode
	_, err := c.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: code})

	var pf *signup.ProvisioningFailedError
	if errors.As(err, &pf) {
		fmt.Println(pf.Err.StatusCode, pf.Result.Status, pf.Result.APIKey != "")
		fmt.Println(pf.Result.SetupStatus.FailedSteps)
	}
	// Output:
	// 503 provisioning_failed true
	// [phone_number]
}
