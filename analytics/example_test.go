package analytics_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/analytics"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// exampleEnv starts a mock server with a business holding a small history
// of calls and leads, and returns a client for it.
func exampleEnv() (*client.Client, func()) {
	start := time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)
	srv := mockserver.New(mockserver.WithStartTime(start))
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	daysAgo := func(d int) *time.Time { return voiceagent.Time(start.AddDate(0, 0, -d)) }
	if _, err := srv.SeedCalls(acct.BusinessID, []mockserver.CallFixture{
		{To: "+15551230001", Duration: 120, CreatedAt: daysAgo(1)},
		{To: "+15551230002", Duration: 60, CreatedAt: daysAgo(2)},
		{To: "+15551230003", Status: "failed", CreatedAt: daysAgo(9)},
	}); err != nil {
		log.Fatal(err)
	}
	if _, err := srv.SeedLeads(acct.BusinessID, []mockserver.LeadFixture{
		{Name: "Ann", Status: "new", CreatedAt: daysAgo(1)},
		{Name: "Bob", Status: "qualified", CreatedAt: daysAgo(3)},
		{Name: "Cid", Status: "converted", CreatedAt: daysAgo(8)},
		{Name: "Dee", Status: "lost", CreatedAt: daysAgo(10)},
	}); err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return c, func() { hs.Close(); srv.Close() }
}

func ExampleService_Dashboard() {
	c, done := exampleEnv()
	defer done()
	d, err := c.Analytics.Dashboard(context.Background(), &analytics.Params{Days: 30})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("calls:", d.Calls.Total, "completed:", d.Calls.Completed, "average:", d.Calls.AvgDurationSeconds)
	fmt.Println("leads:", d.Leads.Total, "conversion:", d.Leads.ConversionRate)
	// Output:
	// calls: 3 completed: 2 average: 90
	// leads: 4 conversion: 25
}

func ExampleService_Funnel() {
	c, done := exampleEnv()
	defer done()
	f, err := c.Analytics.Funnel(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range f.Funnel {
		fmt.Printf("%-9s %d %6.2f%% from top, %6.2f%% drop-off\n", s.Stage, s.Count, s.RateFromTop, s.DropoffRate)
	}
	// Output:
	// new       4 100.00% from top,   0.00% drop-off
	// contacted 2  50.00% from top,  50.00% drop-off
	// qualified 2  50.00% from top,   0.00% drop-off
	// converted 1  25.00% from top,  50.00% drop-off
}

func ExampleService_Weekly() {
	c, done := exampleEnv()
	defer done()
	w, err := c.Analytics.Weekly(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("calls this week:", w.Calls.ThisWeek.Total, "last week:", w.Calls.LastWeek.Total, "change:", w.Calls.Change.Total)
	fmt.Println("leads this week:", w.Leads.ThisWeek.Total, "last week:", w.Leads.LastWeek.Total, "change:", w.Leads.Change.Total)
	// Output:
	// calls this week: 2 last week: 1 change: 100
	// leads this week: 2 last week: 2 change: 0
}
