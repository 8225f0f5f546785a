// Package watch lets readers wait for a change instead of sleeping: the
// mock's long-polling admin routes (?wait=) and Go helpers use it.
package watch

import (
	"context"
	"sync"
)

// Notifier broadcasts "something changed" to every waiter.
type Notifier struct {
	mu sync.Mutex
	ch chan struct{}
}

func (n *Notifier) current() chan struct{} {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch == nil {
		n.ch = make(chan struct{})
	}
	return n.ch
}

// Notify wakes every waiter.
func (n *Notifier) Notify() {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ch != nil {
		close(n.ch)
		n.ch = nil
	}
}

// Wait calls check until it reports true or ctx ends, re-checking after each
// Notify. It returns whether check succeeded.
func (n *Notifier) Wait(ctx context.Context, check func() bool) bool {
	for {
		ch := n.current()
		if check() {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return check()
		}
	}
}
