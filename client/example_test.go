package client_test

import (
	"context"
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func ExampleNew() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}

	// In a program: client.New(os.Getenv("VOICEAGENT_API_KEY")), with the
	// base URL from VOICEAGENT_BASE_URL.
	c := client.New(acct.APIKey,
		voiceagent.WithBaseURL(hs.URL+"/api"),
		voiceagent.WithTimeout(30*time.Second),
		voiceagent.WithUserAgentSuffix("crm-sync/2.1"),
		voiceagent.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
	)
	nums, err := c.Numbers.List(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(nums[0].PhoneNumber)
	// Output: +15552000000
}

// Do reaches an endpoint the SDK does not model, with the client's
// authentication, retries and error decoding.
func ExampleClient_Do() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))

	var out struct {
		Numbers []struct {
			PhoneNumber string `json:"phone_number"`
		} `json:"numbers"`
	}
	q := url.Values{"business_id": {acct.BusinessID}}
	if err := c.Do(context.Background(), http.MethodGet, "/v1/numbers", q, nil, &out); err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Numbers[0].PhoneNumber)
	// Output: +15552000000
}
