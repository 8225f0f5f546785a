package mockserver_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// BenchmarkHelpers measures what a Go helper costs now that each is a
// request of the admin API: in process (New, through the in-process
// transport) and over loopback HTTP (Connect), for a cheap read (Now), a
// write (AddFault then RemoveFault), and reading a journal of 100
// requests (Requests).
func BenchmarkHelpers(b *testing.B) {
	local := mockserver.New()
	defer local.Close()
	hs := httptest.NewServer(mockserver.New())
	defer hs.Close()
	remote, err := mockserver.Connect(hs.URL, "")
	if err != nil {
		b.Fatal(err)
	}
	for _, door := range []struct {
		name string
		srv  *mockserver.Server
	}{{"in-process", local}, {"connect", remote}} {
		acct, err := door.srv.NewAccount(mockserver.AccountOptions{})
		if err != nil {
			b.Fatal(err)
		}
		c := acct.Client()
		for range 100 {
			if _, err := c.Calls.List(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(door.name+"/Now", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				acct.Now()
			}
		})
		b.Run(door.name+"/AddFault", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f, err := acct.AddFault(mockserver.FaultRule{Path: "/v1/calls", Status: 503})
				if err != nil {
					b.Fatal(err)
				}
				door.srv.RemoveFault(f.ID)
			}
		})
		b.Run(door.name+"/Requests100", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if n := len(acct.Requests(nil)); n != 100 {
					b.Fatalf("%d entries", n)
				}
			}
		})
	}
}
