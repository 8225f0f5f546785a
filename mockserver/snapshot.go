package mockserver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
)

// The snapshot document's format and the version this server reads and
// writes (GET /_mock/snapshot). A server refuses a document of another
// format or version.
const (
	SnapshotFormat  = identity.SnapshotFormat
	SnapshotVersion = identity.SnapshotVersion
)

// Snapshot is a snapshot document: every record of one tenant (or of every
// tenant and the server's own), its clock and its pending work. JSON is
// the document as GET /_mock/snapshot responds; the other fields are read
// from it. Write JSON to a file to keep a world; ParseSnapshot reads it
// back.
type Snapshot struct {
	// Format and Version identify the document (SnapshotFormat,
	// SnapshotVersion).
	Format  string
	Version int
	// TakenAt is the tenant's simulated time when the snapshot was taken
	// (the base time for a whole server's).
	TakenAt time.Time
	// BusinessIDs are the root businesses of the tenants it holds.
	BusinessIDs []string
	// Server reports whether it is a whole server's snapshot: it also
	// holds the records of no tenant and the base time.
	Server bool
	// JSON is the document.
	JSON []byte
}

// ParseSnapshot reads a snapshot document, checking its head (format and
// version) and that it decodes; Restore checks the rest.
func ParseSnapshot(data []byte) (*Snapshot, error) {
	if err := identity.CheckSnapshotHead(data); err != nil {
		return nil, fmt.Errorf("mockserver: not a snapshot document of this server: %w", publicError(err))
	}
	var head struct {
		TakenAt time.Time `json:"taken_at"`
		Tenants []struct {
			BusinessID string `json:"business_id"`
		} `json:"tenants"`
		Server json.RawMessage `json:"server"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("mockserver: not a snapshot document: %w", err)
	}
	snap := &Snapshot{Format: SnapshotFormat, Version: SnapshotVersion, TakenAt: head.TakenAt, JSON: data,
		Server: len(head.Server) > 0 && string(head.Server) != "null"}
	for _, t := range head.Tenants {
		snap.BusinessIDs = append(snap.BusinessIDs, t.BusinessID)
	}
	return snap, nil
}

// Snapshot returns a snapshot of the whole server: every tenant, the
// records of no tenant and the base time. The standalone server's -state
// file holds one.
func (s *Server) Snapshot() (*Snapshot, error) { return s.snapshot("") }

// SnapshotOf returns a snapshot of the tenant owning businessID.
func (s *Server) SnapshotOf(businessID string) (*Snapshot, error) {
	if businessID == "" {
		return nil, publicError(domain.InvalidField("business_id", "is required (Snapshot takes the whole server)"))
	}
	return s.snapshot(businessID)
}

func (s *Server) snapshot(businessID string) (*Snapshot, error) {
	data, err := s.identity.Snapshot(businessID)
	if err != nil {
		return nil, publicError(err)
	}
	return ParseSnapshot(data)
}

// Restore restores a snapshot: each tenant in it replaces the tenant with
// the same root business, or is added, with its clock at the snapshot's
// time and its pending work; a whole server's snapshot also replaces the
// records of no tenant and sets the base time. It is all or nothing: an
// *Error (400 for a bad document, 409 for ids another tenant holds) leaves
// the server as it was.
func (s *Server) Restore(snap *Snapshot) error {
	if snap == nil {
		return publicError(domain.Invalid("Restore of a nil snapshot"))
	}
	doc, err := s.identity.ParseSnapshot(snap.JSON)
	if err != nil {
		return publicError(err)
	}
	return publicError(s.identity.Restore(doc))
}

// WriteSnapshotFile writes a snapshot of the whole server to path
// atomically: to a temporary file in the same directory, then renamed, so
// path holds the old state or the new, never part of one.
func (s *Server) WriteSnapshotFile(path string) error {
	snap, err := s.Snapshot()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(snap.JSON)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	return nil
}

// RestoreFile restores the snapshot document in the file at path (see
// Restore).
func (s *Server) RestoreFile(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	snap, err := ParseSnapshot(data)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := s.Restore(snap); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SeedAccounts returns the accounts every Reset provisions again
// (SeedAccount), oldest first, including those a restored whole-server
// snapshot brought.
func (s *Server) SeedAccounts() []*Account {
	var out []*Account
	for _, a := range s.identity.SeedAccounts() {
		out = append(out, s.account(a))
	}
	return out
}

// Copy is a copy of a tenant (Server.Copy): its account, on the same
// server, and the ids of the copied records.
type Copy struct {
	*Account
	// IDs maps every copied record's id (businesses, agents, numbers,
	// calls, leads, texts, events, deliveries, ...) to its copy's id.
	IDs map[string]string
}

// Copy makes a new tenant holding a copy of every record of the tenant
// owning businessID, at the same simulated time, with its pending work, on
// a clock of its own: what happens in one world never shows in the other.
// The copy has new ids everywhere (references follow), new numbers from
// the pool, new key values and session tokens; its Account has a new key
// with every scope and a session for the copy of the business's owner.
func (s *Server) Copy(businessID string) (*Copy, error) {
	cp, err := s.identity.CopyTenant(businessID)
	if err != nil {
		return nil, publicError(err)
	}
	return &Copy{Account: s.account(&cp.Account), IDs: cp.IDs}, nil
}

// Snapshot returns a snapshot of the account's tenant: see Server.SnapshotOf.
func (a *Account) Snapshot() (*Snapshot, error) { return a.srv.SnapshotOf(a.BusinessID) }

// Restore restores a snapshot on the account's server: see Server.Restore.
// Restoring the account's own snapshot brings its tenant back to that
// moment; its key keeps working when the snapshot holds it.
func (a *Account) Restore(snap *Snapshot) error { return a.srv.Restore(snap) }

// Copy copies the account's tenant: see Server.Copy.
func (a *Account) Copy() (*Copy, error) { return a.srv.Copy(a.BusinessID) }
