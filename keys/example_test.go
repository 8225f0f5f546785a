package keys_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Key management with a dashboard session: create a key (its value is shown
// once), list the keys, revoke one.
func ExampleService() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{}) // or the session of signup.Service.ExchangeMagicLink
	ctx := context.Background()

	dash := client.New("", voiceagent.WithBaseURL(hs.URL+"/api"), voiceagent.WithSessionCookie(acct.Session))
	k, err := dash.Keys.Create(ctx, &keys.CreateParams{Name: "CI", Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead}})
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Name, k.Scopes, len(k.Value), k.Prefix == k.Value[:20])

	if _, err := dash.Keys.Revoke(ctx, k.ID); err != nil {
		panic(err)
	}
	for key, err := range dash.Keys.All(ctx, nil) {
		if err != nil {
			panic(err)
		}
		fmt.Println(key.Name, key.IsActive)
	}
	// Output:
	// CI [calls:read] 56 true
	// CI false
	// Test Key true
}
