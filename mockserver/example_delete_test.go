package mockserver_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// An account made on a shared server is deleted when its test ends
// (t.Cleanup(func() { _ = acct.Delete(context.Background()) })): its
// records, clock, script, fault rules and log entries go, and its key
// gets 401.
func ExampleAccount_Delete() {
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := acct.Client()
	ctx := context.Background()

	if err := acct.Delete(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(srv.Tenants()))
	_, err = c.Numbers.List(ctx, nil)
	var apiErr *voiceagent.Error
	fmt.Println(errors.As(err, &apiErr) && apiErr.StatusCode == 401)
	var me *mockserver.Error
	fmt.Println(errors.As(acct.Delete(ctx), &me) && me.Code == "not_found")
	// Output:
	// 0
	// true
	// true
}
