package numbers_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/numbers"
)

func ExampleService_List() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))

	nums, err := c.Numbers.List(context.Background(), &numbers.ListParams{BusinessID: acct.BusinessID})
	if err != nil {
		log.Fatal(err)
	}
	for _, n := range nums {
		fmt.Println(n.PhoneNumber, n.AgentID == acct.AgentID)
	}
	// Output: +15552000000 true
}
