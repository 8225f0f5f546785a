package mockserver

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// TestMain runs the package's tests with the store's cache check on: every
// list read that copies a kept encoding (leads, calls, agents) builds it
// again and compares, so a record changed behind its table's back, by
// any write route or simulated process the tests drive, fails the run.
// Benchmarks run without it (it would measure the check).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		store.SetCacheCheck(true)
	}
	code := m.Run()
	if stale := store.StaleEncodings(); len(stale) > 0 {
		fmt.Fprintf(os.Stderr, "FAIL: %d list reads served a stale kept encoding:\n%s\n", len(stale), strings.Join(stale, "\n"))
		code = 1
	}
	os.Exit(code)
}
