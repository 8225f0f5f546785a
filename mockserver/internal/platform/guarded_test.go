package platform

import (
	"strings"
	"testing"
	"time"
)

// A Guarded value is read in any Tx and changed in a write Tx; a read Tx,
// an ended Tx or no Tx at all is refused with a panic that says so.
func TestGuardedTakesATxAndAWriteTxToChange(t *testing.T) {
	p := New(Config{Start: time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)})
	var g Guarded[[]string]
	p.Write(func(tx *Tx) { g.Set(tx, []string{"a"}) })
	p.Read(func(tx *Tx) {
		if got := g.Get(tx); len(got) != 1 || got[0] != "a" {
			t.Errorf("Get = %v, want [a]", got)
		}
	})

	panics := func(name, want string, fn func()) {
		t.Helper()
		defer func() {
			msg, _ := recover().(string)
			if !strings.Contains(msg, want) {
				t.Errorf("%s: panic %q, want one saying %q", name, msg, want)
			}
		}()
		fn()
	}
	panics("Set in a read Tx", "changed through a read Tx", func() { p.Read(func(tx *Tx) { g.Set(tx, nil) }) })
	ended := p.WriteTx()
	ended.End()
	panics("Get in an ended Tx", "has ended", func() { g.Get(ended) })
	panics("Set in an ended Tx", "has ended", func() { g.Set(ended, nil) })
	panics("Get without a Tx", "without a Tx", func() { g.Get(nil) })
	p.Read(func(tx *Tx) {
		if got := g.Get(tx); len(got) != 1 {
			t.Errorf("a refused Set changed the value: %v", got)
		}
	})
}
