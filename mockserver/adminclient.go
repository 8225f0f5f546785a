package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// adminClient is the one Go client of the admin API (/_mock): every helper
// of Server and Account that the admin API offers is a request it makes.
// A server made with New is reached in process (its transport calls the
// server's handler); one reached with Connect over the network.
type adminClient struct {
	// root is the server's root URL (scheme://host[:port]), without /_mock.
	root string
	// token is the admin token, sent as a bearer token when set.
	token string
	http  *http.Client
}

// adminTimeout bounds each admin request made over the network; long
// polls ask for less.
const adminTimeout = 2 * time.Minute

// do sends one admin request: method, a path under /_mock, query, body
// encoded as JSON unless nil; the JSON answer is decoded into out unless
// nil (out may be a *[]byte for the raw answer). An answer other than 2xx
// is an *Error.
func (c *adminClient) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	var r io.Reader
	if body != nil {
		if raw, ok := body.([]byte); ok {
			r = bytes.NewReader(raw)
		} else {
			b, err := json.Marshal(body)
			if err != nil {
				return err
			}
			r = bytes.NewReader(b)
		}
	}
	u := c.root + "/_mock" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, r)
	if err != nil {
		return err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("mockserver: %s /_mock%s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("mockserver: %s /_mock%s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return responseError(resp.StatusCode, raw)
	}
	switch o := out.(type) {
	case nil:
	case *[]byte:
		*o = raw
	default:
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("mockserver: %s /_mock%s: decoding the answer: %w", method, path, err)
		}
	}
	return nil
}

// responseError is the *Error of an admin answer other than 2xx: its
// status and the error the body holds (the API's error format).
func responseError(status int, body []byte) *Error {
	var v struct {
		Error struct {
			Code    string        `json:"code"`
			Message string        `json:"message"`
			Details []ErrorDetail `json:"details"`
		} `json:"error"`
	}
	e := &Error{Status: status}
	if json.Unmarshal(body, &v) == nil && v.Error.Code != "" {
		e.Code, e.Message, e.Details = v.Error.Code, v.Error.Message, v.Error.Details
	} else {
		e.Code, e.Message = http.StatusText(status), strings.TrimSpace(string(body))
	}
	return e
}

// must panics with err, for the helpers that return no error: a server in
// process answers them unless the program is wrong, and a server reached
// with Connect that fails to is a broken test environment.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// admin sends an admin request for a helper without a context.
func (s *Server) admin(method, path string, query url.Values, body, out any) error {
	return s.api.do(context.Background(), method, path, query, body, out)
}

// mustAdmin is admin for a helper that returns no error (see must).
func (s *Server) mustAdmin(method, path string, query url.Values, body, out any) {
	must(s.admin(method, path, query, body, out))
}

// query builds a query of name-value pairs, leaving out empty values.
func query(pairs ...string) url.Values {
	q := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] != "" {
			q.Set(pairs[i], pairs[i+1])
		}
	}
	return q
}

// pollWait is how long a helper that waits (WaitDeliveries, WaitOutbox)
// sleeps between two reads of the server, at most: it starts at a
// millisecond and doubles.
const pollWait = 25 * time.Millisecond

// poll calls try until it reports done or ctx ends, sleeping between calls
// (a millisecond, doubling up to pollWait).
func poll(ctx context.Context, try func() bool) {
	wait := time.Millisecond
	for !try() {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, pollWait)
	}
}

// Connect returns the Server of a mock server running elsewhere (the
// standalone binary, a container), reached at url (its root, such as
// http://127.0.0.1:8080; a trailing /api or /_mock is accepted), with
// adminToken as the admin API's token ("" when the server requires none).
// Every helper of Server and Account that the admin API offers works on
// it as on a server made with New, through the admin API: NewAccount,
// Script, VerifyScript, Advance, Copy, Snapshot, Restore, Requests,
// Deliveries, WaitDeliveries, Schedule, AddFault, InboundCall, InboundSMS,
// ...; Account.Client returns an SDK client pointed at url/api with the
// same fast retries. The helpers that reach into a server's memory
// (SeedAccount, SeedAccounts, MinutesUsed, ProviderAssistants, Routes,
// SDRCronSecret, LogUsage, ServeHTTP, Drain) panic on a connected server,
// saying so. Connect checks that GET /_mock/health answers.
func Connect(url, adminToken string) (*Server, error) {
	root := strings.TrimRight(url, "/")
	root = strings.TrimSuffix(strings.TrimSuffix(root, "/_mock"), "/api")
	s := &Server{baseURL: root + "/api", api: &adminClient{root: root, token: adminToken, http: &http.Client{Timeout: adminTimeout}}}
	var health struct {
		Version string `json:"version"`
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := s.api.do(ctx, http.MethodGet, "/health", nil, nil, &health); err != nil {
		return nil, fmt.Errorf("mockserver: Connect(%s): %w", url, err)
	}
	return s, nil
}

// inProcessOnly panics, naming the helper, when s was reached with Connect:
// helper reads or changes the server's memory directly, which only a server
// in this process allows.
func (s *Server) inProcessOnly(helper string) {
	if s.platform == nil {
		panic("mockserver: " + helper + " needs a server made with New in this process; the admin API has no route for it, and this server was reached with Connect")
	}
}

// itoa formats an int for a query.
func itoa[T ~int | ~int64](n T) string { return strconv.FormatInt(int64(n), 10) }
