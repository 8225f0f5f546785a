package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
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
	var data []byte
	if err := s.admin(http.MethodGet, "/snapshot", query("business_id", businessID), nil, &data); err != nil {
		return nil, err
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
	return s.admin(http.MethodPost, "/snapshot", nil, snap.JSON, nil)
}

// WriteSnapshotFile writes a snapshot of the whole server to path
// atomically: to a temporary file in the same directory, then renamed, so
// path holds the old state or the new, never part of one. An existing
// file keeps its permissions; a new one is readable by its owner only
// (it holds webhook secrets). When path is a symbolic link, the file it
// points to is written. CheckSnapshotFile checks beforehand that path can
// be written.
func (s *Server) WriteSnapshotFile(path string) error {
	snap, err := s.Snapshot()
	if err != nil {
		return err
	}
	path = followLink(path)
	f, err := os.CreateTemp(filepath.Dir(path), snapshotTempPattern(path))
	if err != nil {
		return err
	}
	tmp := f.Name()
	if fi, serr := os.Stat(path); serr == nil {
		err = f.Chmod(fi.Mode().Perm())
	}
	if err == nil {
		_, err = f.Write(snap.JSON)
	}
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

// snapshotTempPattern is the os.CreateTemp pattern of the temporary file
// WriteSnapshotFile writes before renaming it to path: hidden, beside
// path, named after it.
func snapshotTempPattern(path string) string { return "." + filepath.Base(path) + ".*.tmp" }

// followLink returns the file the symbolic link path points to, or path
// itself when it is not a link (or does not exist).
func followLink(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// CheckSnapshotFile checks, before a server runs, that WriteSnapshotFile
// will be able to write path, so that a state file that cannot be written
// stops the start instead of losing the state at the end: path's directory
// must exist and take new files, and path must not be a directory. It also
// removes the temporary files that a write of path stopped midway (a killed
// process) left beside it, and returns their names.
func CheckSnapshotFile(path string) (removed []string, err error) {
	path = followLink(path)
	dir := filepath.Dir(path)
	switch fi, err := os.Stat(dir); {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the directory %s does not exist: create it, or name a file in a directory that exists", dir)
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a directory", dir)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory: name a file", path)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("reading the directory %s: %w", dir, err)
	}
	prefix, suffix, _ := strings.Cut(snapshotTempPattern(path), "*")
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || len(name) <= len(prefix)+len(suffix) || !strings.HasPrefix(name, prefix) || !strings.HasSuffix(name, suffix) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			return removed, fmt.Errorf("removing %s, left by a write that was stopped: %w", name, err)
		}
		removed = append(removed, name)
	}
	probe, err := os.CreateTemp(dir, snapshotTempPattern(path))
	if err != nil {
		return removed, fmt.Errorf("the state cannot be written in %s: %w", dir, err)
	}
	probe.Close()
	return removed, os.Remove(probe.Name())
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
	s.inProcessOnly("SeedAccounts")
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
	var cp admin.AccountCopy
	if err := s.admin(http.MethodPost, "/accounts/copy", nil, map[string]string{"business_id": businessID}, &cp); err != nil {
		return nil, err
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
