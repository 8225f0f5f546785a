package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// A copy is the same world with new ids: a test changes its copy freely,
// and the account it was copied from never sees the change. IDs maps each
// record to its copy.
func ExampleAccount_Copy() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	ids, err := acct.SeedLeads([]mockserver.LeadFixture{{Name: "Ann Lee", Phone: "+15551230001"}})
	if err != nil {
		log.Fatal(err)
	}

	cp, err := acct.Copy()
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	copied := cp.IDs[ids[0]]
	_, err = cp.Client().Leads.Update(ctx, &leads.UpdateParams{ID: copied, Status: voiceagent.Ptr(leads.StatusQualified)})
	if err != nil {
		log.Fatal(err)
	}
	mine, err := acct.Client().Leads.Get(ctx, ids[0])
	if err != nil {
		log.Fatal(err)
	}
	theirs, err := cp.Client().Leads.Get(ctx, copied)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("original:", *mine.Name, mine.Status)
	fmt.Println("copy:", *theirs.Name, theirs.Status)
	fmt.Println("new ids:", copied != ids[0], cp.BusinessID != acct.BusinessID)
	fmt.Println("same time:", cp.Now().Equal(acct.Now()))
	// Output:
	// original: Ann Lee new
	// copy: Ann Lee qualified
	// new ids: true true
	// same time: true
}

// A snapshot keeps the tenant as it is; restoring it brings the tenant
// back to that moment, its records and its clock, whatever happened since.
func ExampleAccount_Snapshot() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := acct.SeedLeads([]mockserver.LeadFixture{{Name: "Ann Lee", Phone: "+15551230001"}}); err != nil {
		log.Fatal(err)
	}
	snap, err := acct.Snapshot()
	if err != nil {
		log.Fatal(err)
	}

	count := func() int {
		page, err := acct.Client().Leads.List(context.Background(), &leads.ListParams{})
		if err != nil {
			log.Fatal(err)
		}
		return len(page.Data)
	}
	if _, err := acct.SeedLeads([]mockserver.LeadFixture{{Name: "Bo Chen", Phone: "+15551230002"}}); err != nil {
		log.Fatal(err)
	}
	acct.Advance(time.Hour)
	fmt.Println("before the restore:", count(), "leads at", acct.Now().Format(time.TimeOnly))

	if err := acct.Restore(snap); err != nil {
		log.Fatal(err)
	}
	fmt.Println("after the restore:", count(), "lead at", acct.Now().Format(time.TimeOnly))
	// Output:
	// before the restore: 2 leads at 17:00:00
	// after the restore: 1 lead at 16:00:00
}
