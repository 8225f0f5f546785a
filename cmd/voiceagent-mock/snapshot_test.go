package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// statefulBinary is the binary started by startStateful: its URLs, what it
// printed, and a way to stop it with SIGTERM.
type statefulBinary struct {
	cmd         *exec.Cmd
	base, admin string
	out         *syncBuffer
	done        chan error
	once        sync.Once
}

// startStateful starts the binary with -state and waits for its start-up
// lines, up to the one saying whether the state file was loaded; it is
// stopped when the test ends unless stop was called.
func startStateful(t *testing.T, bin string, args ...string) *statefulBinary {
	t.Helper()
	r := &statefulBinary{cmd: exec.Command(bin, args...), out: &syncBuffer{}, done: make(chan error, 1)}
	r.cmd.Env = []string{}
	pipe, err := r.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, r.cmd.Start())
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		_, _ = r.out.Write(append(lines.Bytes(), '\n'))
		if b, ok := strings.CutPrefix(lines.Text(), "base URL: "); ok {
			r.base = b
		}
		if a, ok := strings.CutPrefix(lines.Text(), "admin API: "); ok {
			r.admin = a
		}
		if strings.HasPrefix(lines.Text(), "state: ") && !strings.HasPrefix(lines.Text(), "state: removed ") {
			break
		}
	}
	go func() {
		_, _ = io.Copy(r.out, pipe)
		r.done <- r.cmd.Wait()
	}()
	if r.base == "" || r.admin == "" {
		_ = r.cmd.Process.Kill()
		t.Fatalf("the binary printed no URLs: %v\n%s", <-r.done, r.out.String())
	}
	t.Cleanup(func() { r.stop(t) })
	return r
}

// stop sends SIGTERM and checks the binary exits 0.
func (r *statefulBinary) stop(t *testing.T) {
	r.once.Do(func() {
		_ = r.cmd.Process.Signal(syscall.SIGTERM)
		assert.Equal(t, 0, exitCode(t, <-r.done), r.out.String())
	})
}

// Snapshots, copies and the state file through raw HTTP against the
// binary: a tenant with an agent, a lead and a queued call is copied; the
// copy's key reads the same world with new ids; the copy's call completes
// on the copy's clock while the original's stays queued; changes in one
// world never show in the other; a snapshot taken before changes, restored,
// brings the records and the clock back; bad documents are refused; the
// schedule lists the queued call's work and drops it once done; a binary
// restarted with the same -state file keeps keys, records and clocks.
func TestTheBinarySnapshotsCopiesAndKeepsState(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	state := filepath.Join(t.TempDir(), "state.json")
	args := []string{"-addr", "127.0.0.1:0", "-start", "2026-03-10T16:00:00Z", "-state", state}
	first := startStateful(t, bin, args...)
	assert.Contains(t, first.out.String(), "does not exist yet")
	demo := demoKey.FindStringSubmatch(first.out.String())
	require.Len(t, demo, 2, first.out.String())
	base, admin := first.base, first.admin

	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, acct)
	biz, agent, number := acct["business_id"].(string), acct["agent_id"].(string), acct["phone_number"].(string)
	auth := []string{"Authorization", "Bearer " + acct["api_key"].(string)}
	status, out := httpJSON(t, http.MethodPost, admin+"/inbound-sms", fmt.Sprintf(`{"to":%q,"from":"+14155550110","body":"Open Sundays?"}`, number))
	require.Equal(t, http.StatusCreated, status, out)
	status, call := httpJSON(t, http.MethodPost, base+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+14155550111"}`, agent), auth...)
	require.Equal(t, http.StatusCreated, status, call)
	callID := call["id"].(string)
	leads := func(auth []string) []any {
		status, out := httpJSON(t, http.MethodGet, base+"/v1/leads", "", auth...)
		require.Equal(t, http.StatusOK, status, out)
		return out["leads"].([]any)
	}
	require.Len(t, leads(auth), 1)
	leadID := leads(auth)[0].(map[string]any)["id"].(string)
	callStatus := func(id string, auth []string) string {
		status, c := httpJSON(t, http.MethodGet, base+"/v1/calls?id="+id, "", auth...)
		require.Equal(t, http.StatusOK, status, c)
		return c["status"].(string)
	}
	schedule := func(biz string) []string {
		status, out := httpJSON(t, http.MethodGet, admin+"/schedule?business_id="+biz, "")
		require.Equal(t, http.StatusOK, status, out)
		var kinds []string
		for _, task := range out["tasks"].([]any) {
			kinds = append(kinds, task.(map[string]any)["kind"].(string)+" "+task.(map[string]any)["subject_id"].(string))
		}
		return kinds
	}
	clock := func(biz string) string {
		status, out := httpJSON(t, http.MethodGet, admin+"/clock?business_id="+biz, "")
		require.Equal(t, http.StatusOK, status, out)
		return out["now"].(string)
	}
	advance := func(biz string, seconds int) {
		status, out := httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":%d,"business_id":%q}`, seconds, biz))
		require.Equal(t, http.StatusOK, status, out)
	}
	assert.Contains(t, schedule(biz), "call.answer "+callID)

	// A snapshot before any change.
	resp, err := http.Get(admin + "/snapshot?business_id=" + biz)
	require.NoError(t, err)
	snap, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(snap))
	assert.Contains(t, string(snap), `"format":"voiceagent-mock-snapshot","version":1`)
	queuedAt := clock(biz)

	// The copy: the same world with new ids, on its own clock.
	status, cp := httpJSON(t, http.MethodPost, admin+"/accounts/copy", fmt.Sprintf(`{"business_id":%q}`, biz))
	require.Equal(t, http.StatusCreated, status, cp)
	ids := cp["ids"].(map[string]any)
	copyBiz, copyCall, copyLead := cp["business_id"].(string), ids[callID].(string), ids[leadID].(string)
	assert.Equal(t, ids[biz], copyBiz)
	assert.Equal(t, ids[agent], cp["agent_id"])
	assert.NotEqual(t, number, cp["phone_number"], "a new number from the pool")
	copyAuth := []string{"Authorization", "Bearer " + cp["api_key"].(string)}
	assert.Equal(t, "queued", callStatus(copyCall, copyAuth))
	copyLeads := leads(copyAuth)
	require.Len(t, copyLeads, 1)
	assert.Equal(t, copyLead, copyLeads[0].(map[string]any)["id"])
	assert.Equal(t, "+14155550110", copyLeads[0].(map[string]any)["phone"])
	assert.Equal(t, queuedAt, clock(copyBiz), "the copy starts at the same time")
	assert.Equal(t, []string{"call.answer " + copyCall}, schedule(copyBiz))

	advance(copyBiz, 600)
	assert.Equal(t, "completed", callStatus(copyCall, copyAuth))
	assert.Equal(t, "queued", callStatus(callID, auth), "the original's call waits for the original's clock")
	assert.Empty(t, schedule(copyBiz), "the copy's call's work is done")
	assert.Equal(t, queuedAt, clock(biz))
	status, _ = httpJSON(t, http.MethodGet, base+"/v1/calls?id="+copyCall, "", auth...)
	assert.Equal(t, http.StatusNotFound, status, "the original's key does not see the copy")
	status, out = httpJSON(t, http.MethodPost, admin+"/inbound-sms", fmt.Sprintf(`{"to":%q,"from":"+14155550112","body":"Hi"}`, number))
	require.Equal(t, http.StatusCreated, status, out)
	assert.Len(t, leads(auth), 2)
	assert.Len(t, leads(copyAuth), 1, "a lead of the original never shows in the copy")

	// Bad documents change nothing.
	for name, doc := range map[string]string{
		"truncated":       string(snap[:len(snap)/3]),
		"another format":  strings.Replace(string(snap), "voiceagent-mock-snapshot", "moto-state", 1),
		"another version": strings.Replace(string(snap), `"version":1`, `"version":9`, 1),
		"not an object":   `[]`,
	} {
		status, out := httpJSON(t, http.MethodPost, admin+"/snapshot", doc)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", name, out)
		assert.NotEmpty(t, out["error"], name)
	}
	assert.Len(t, leads(auth), 2, "the refused documents changed nothing")

	// The original moves on; the snapshot restored brings it back.
	advance(biz, 600)
	assert.Equal(t, "completed", callStatus(callID, auth))
	assert.Empty(t, schedule(biz))
	status, out = httpJSON(t, http.MethodPost, admin+"/snapshot", string(snap))
	require.Equal(t, http.StatusOK, status, out)
	assert.Equal(t, "queued", callStatus(callID, auth))
	assert.Len(t, leads(auth), 1, "the lead made after the snapshot is gone")
	assert.Equal(t, queuedAt, clock(biz), "the clock is back")
	assert.Equal(t, []string{"call.answer " + callID}, schedule(biz), "its work is back")
	assert.Equal(t, "completed", callStatus(copyCall, copyAuth), "the copy is untouched")
	advance(biz, 2)
	assert.Equal(t, "in-progress", callStatus(callID, auth))
	afterAt := clock(biz)

	// Stopped and started again with the same state file.
	first.stop(t)
	assert.Contains(t, first.out.String(), "state: written to "+state)
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(data, []byte(`{"format":"voiceagent-mock-snapshot"`)))
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(state), ".*.tmp"))
	assert.Empty(t, matches, "no temporary file is left")

	second := startStateful(t, bin, args...)
	assert.Contains(t, second.out.String(), "state: loaded from "+state)
	assert.Contains(t, second.out.String(), "export VOICEAGENT_API_KEY="+demo[1], "the demo key of the first run is printed again")
	base, admin = second.base, second.admin
	assert.Equal(t, "in-progress", callStatus(callID, auth), "the key and the call survive the restart")
	assert.Equal(t, "completed", callStatus(copyCall, copyAuth))
	assert.Equal(t, afterAt, clock(biz), "the tenant's clock survives the restart")
	assert.Equal(t, []string{"call.end " + callID}, schedule(biz), "its pending work too")
	advance(biz, 600)
	assert.Equal(t, "completed", callStatus(callID, auth))
	status, out = httpJSON(t, http.MethodGet, base+"/v1/agents", "", "Authorization", "Bearer "+demo[1])
	assert.Equal(t, http.StatusOK, status, out)

	// A bad state file stops the start: exit 2, saying why.
	second.stop(t)
	require.NoError(t, os.WriteFile(state, []byte(`{"format":"voiceagent-mock-snapshot","version":1,"tenants":[`), 0o600))
	code, _, stderr := runBinary(t, nil, args...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "-state")
}

// unwritableDir returns a directory the test's user cannot make files in:
// a directory of its own without write permission, or, for a user whom
// permissions do not stop (root), Linux's /sys.
func unwritableDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o500))
	t.Cleanup(func() { _ = os.Chmod(dir, 0o700) })
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return dir
	}
	f.Close()
	require.NoError(t, os.Remove(f.Name()))
	if runtime.GOOS != "linux" {
		t.Fatalf("this user writes in a directory without write permission, and %s has no /sys", runtime.GOOS)
	}
	return "/sys"
}

// -state is checked at start: a file in a directory that does not exist,
// that is not a directory or that takes no new files, and a directory,
// stop the start with exit status 2 saying why, before anything is served
// (such a file used to fail only at SIGTERM, losing the state).
func TestTheBinaryChecksTheStateFileAtStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notDir := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(notDir, []byte("x"), 0o600))
	for _, tc := range []struct{ path, why string }{
		{filepath.Join(dir, "missing", "state.json"), "the directory " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(notDir, "state.json"), notDir + " is not a directory"},
		{dir, dir + " is a directory: name a file"},
		{filepath.Join(unwritableDir(t), "state.json"), "the state cannot be written in "},
	} {
		code, stdout, stderr := runBinary(t, nil, "-addr", "127.0.0.1:0", "-state", tc.path)
		assert.Equal(t, 2, code, tc.path)
		assert.Contains(t, stderr, "voiceagent-mock: -state: "+tc.why, tc.path)
		assert.NotContains(t, stdout, "listening", "%s: nothing served", tc.path)
	}
	_, err := os.Stat(filepath.Join(dir, "missing"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "the check makes no directory")
}

// A temporary file that a killed write left beside the state file is
// removed at start, and said so, while other files stay; the state file
// written at the end is its owner's only when new, and keeps its mode when
// it is rewritten.
func TestTheBinaryCleansUpAndKeepsTheStateFilesMode(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	leftover := filepath.Join(dir, ".state.json.4242.tmp")
	require.NoError(t, os.WriteFile(leftover, []byte(`{"format":"voiceagent-mock-snap`), 0o600))
	others := []string{filepath.Join(dir, ".notes.json.1.tmp"), filepath.Join(dir, "state.json.tmp"), filepath.Join(dir, ".state.json.tmp")}
	for _, o := range others {
		require.NoError(t, os.WriteFile(o, []byte("keep"), 0o600))
	}
	args := []string{"-addr", "127.0.0.1:0", "-state", state}

	first := startStateful(t, bin, args...)
	assert.Contains(t, first.out.String(), "state: removed .state.json.4242.tmp, a temporary file left by a write that was stopped")
	assert.Contains(t, first.out.String(), "does not exist yet")
	assert.NoFileExists(t, leftover)
	for _, o := range others {
		assert.FileExists(t, o, "not a temporary file of the state file's")
	}
	first.stop(t)
	fi, err := os.Stat(state)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm(), "a new state file is its owner's only")

	require.NoError(t, os.Chmod(state, 0o640))
	second := startStateful(t, bin, args...)
	assert.Contains(t, second.out.String(), "state: loaded from "+state)
	assert.NotContains(t, second.out.String(), "state: removed")
	second.stop(t)
	fi, err = os.Stat(state)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "the rewritten file keeps its mode")
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(data, []byte(`{"format":"voiceagent-mock-snapshot"`)), "the file was rewritten")
	matches, err := filepath.Glob(filepath.Join(dir, ".state.json.*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, matches, "no temporary file is left")
}
