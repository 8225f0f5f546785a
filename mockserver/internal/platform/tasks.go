package platform

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
)

// TaskFunc runs a task of one kind with a write Tx at its tenant's time
// now. It reads only the Tx and the task's fields: it looks up the record
// the task acts on by t.Subject and does nothing when the record is gone
// or already past the task's step. So a task can be rebuilt from its
// clock.Task value alone (Resume).
type TaskFunc func(tx *Tx, now time.Time, t clock.Task)

// UnlockedTaskFunc runs a task of one kind without the state lock, at
// tenant's time now: for work that waits outside the lock (an HTTP request
// to a receiver) and takes a Tx of its own when it needs one. Like a
// TaskFunc it reads only the task's fields and the state.
type UnlockedTaskFunc func(tenant string, now time.Time, t clock.Task)

// taskKind is how a kind of task runs: exactly one of fire (a TaskFunc
// under a write Tx, made once per kind) and unlocked is set.
type taskKind struct {
	fire     func(now time.Time, t clock.Task)
	unlocked UnlockedTaskFunc
}

// taskKinds is the registry of task kinds: the one place a task's kind is
// turned into the work it does.
type taskKinds struct {
	mu    sync.RWMutex
	kinds map[string]taskKind
}

// DefineTask defines kind: a task of that kind runs run with a write Tx
// when its tenant's clock reaches it. Every service defines its kinds
// when it is made, before it schedules any task. Defining a kind twice,
// or the empty kind, panics.
func (s *Platform) DefineTask(kind string, run TaskFunc) {
	if run == nil {
		panic("platform: DefineTask " + kind + " with a nil func")
	}
	s.defineTask(kind, taskKind{fire: func(now time.Time, t clock.Task) {
		tx := s.WriteTx()
		defer tx.End()
		run(tx, now, t)
	}})
}

// DefineUnlockedTask defines kind as DefineTask does, for work that runs
// outside the state lock: a task of that kind runs run without a Tx.
func (s *Platform) DefineUnlockedTask(kind string, run UnlockedTaskFunc) {
	if run == nil {
		panic("platform: DefineUnlockedTask " + kind + " with a nil func")
	}
	s.defineTask(kind, taskKind{unlocked: run})
}

func (s *Platform) defineTask(kind string, k taskKind) {
	if kind == "" {
		panic("platform: a task kind may not be empty")
	}
	s.tasks.mu.Lock()
	defer s.tasks.mu.Unlock()
	if _, ok := s.tasks.kinds[kind]; ok {
		panic("platform: task kind " + kind + " defined twice")
	}
	if s.tasks.kinds == nil {
		s.tasks.kinds = map[string]taskKind{}
	}
	s.tasks.kinds[kind] = k
}

// TaskDefined reports whether kind was defined (DefineTask,
// DefineUnlockedTask).
func (s *Platform) TaskDefined(kind string) bool {
	_, ok := s.taskKind(kind)
	return ok
}

// TaskKinds returns the defined kinds of task, sorted.
func (s *Platform) TaskKinds() []string {
	s.tasks.mu.RLock()
	defer s.tasks.mu.RUnlock()
	out := make([]string, 0, len(s.tasks.kinds))
	for k := range s.tasks.kinds {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func (s *Platform) taskKind(kind string) (taskKind, bool) {
	s.tasks.mu.RLock()
	defer s.tasks.mu.RUnlock()
	k, ok := s.tasks.kinds[kind]
	return k, ok
}

// Schedule puts task t on tenant's clock ("": the base clock, for work of
// no tenant): when the clock reaches t.At, the func defined for t.Kind
// runs with the tenant's time (with a write Tx unless the kind was defined
// by DefineUnlockedTask). The tenant's schedule lists t until it runs. The
// returned func cancels t if it has not run. The kind must be defined: a
// task of an unknown kind is a programming error, and Schedule panics.
func (s *Platform) Schedule(tenant string, t clock.Task) (cancel func()) {
	cancel, err := s.schedule(tenant, t)
	if err != nil {
		panic(err)
	}
	return cancel
}

// Resume puts task t, rebuilt from data (a saved schedule), back on
// tenant's clock, as Schedule does. It returns an error, and schedules
// nothing, when t's kind is not defined.
func (s *Platform) Resume(tenant string, t clock.Task) error {
	_, err := s.schedule(tenant, t)
	return err
}

func (s *Platform) schedule(tenant string, t clock.Task) (cancel func(), err error) {
	k, ok := s.taskKind(t.Kind)
	if !ok {
		return nil, fmt.Errorf("platform: unknown task kind %q", t.Kind)
	}
	fire := k.fire
	if k.unlocked != nil {
		fire = func(now time.Time, t clock.Task) { k.unlocked(tenant, now, t) }
	}
	return s.Clocks.Of(tenant).Schedule(t, fire), nil
}
