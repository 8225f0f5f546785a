package hooks

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outbound HTTP: every request the mock makes to a receiver (subscription
// deliveries, per-call webhooks and approval callbacks, all run by the
// delivery engine of deliveries.go) goes through allowedTarget and postOutbound, so the host
// rules and the worker pool are the same everywhere.
const (
	// outboundTimeout bounds one attempt (connect, send, response).
	outboundTimeout = 10 * time.Second
	// outboundConcurrency is how many attempts run at once; more wait.
	outboundConcurrency = 8
	// outboundMaxAnswer is how much of a receiver's response is kept.
	outboundMaxAnswer = 4 << 10
)

// errTargetRefused wraps every refusal of allowedTarget.
var errTargetRefused = errors.New("receiver not allowed")

// loopbackHosts names the loopback hosts in refusals.
const loopbackHosts = "localhost, 127.0.0.1, [::1]"

// allowedTarget is the one check of a receiver URL the mock will call, and
// its refusals say in words why: an absolute https or http URL with a host
// and no user or password; http only on a loopback host (localhost,
// *.localhost, 127.0.0.0/8, ::1), or on any host when the server runs with
// WithExternalWebhooks(true) (-allow-external-webhooks), for receivers in
// other containers (http://receiver:3000/hook); and a host outside loopback
// only with that option. When saving is set (the URL is being saved, not
// called) the last rule is left out: an https receiver elsewhere may be
// saved, and its deliveries fail saying why. No DNS lookup happens here;
// the dialer checks the address it connects to.
func (s *Service) allowedTarget(u *url.URL, saving bool) error {
	if u == nil || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return fmt.Errorf("%w: the URL must be absolute, with a host (such as https://example.com/hooks)", errTargetRefused)
	}
	if u.User != nil {
		return fmt.Errorf("%w: the URL may not carry a user name or password (put a token in its path, or use a custom header)", errTargetRefused)
	}
	loopback := IsLoopbackHost(u.Hostname())
	external := s.Config.ExternalWebhooks
	switch u.Scheme {
	case "https":
	case "http":
		if !loopback && !external {
			return fmt.Errorf("%w: http:// is only called on loopback hosts (%s); use https://, or start the mock server with -allow-external-webhooks (WithExternalWebhooks(true)) to call http:// receivers on other hosts, such as http://receiver:3000/hook in docker compose", errTargetRefused, loopbackHosts)
		}
	default:
		return fmt.Errorf("%w: the scheme must be https (or http), not %q", errTargetRefused, u.Scheme)
	}
	if !loopback && !external && !saving {
		return fmt.Errorf("%w: host %s is outside loopback, and the mock server only calls loopback hosts (%s) unless started with -allow-external-webhooks (WithExternalWebhooks(true))", errTargetRefused, u.Hostname(), loopbackHosts)
	}
	return nil
}

// IsLoopbackHost reports whether a host name or literal IP is loopback.
func IsLoopbackHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(h, "[]"))
	return ip != nil && ip.IsLoopback()
}

// OutboundRequest is one HTTP attempt to a receiver.
type OutboundRequest struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// outboundResult is how an attempt went: the status (0 when there was no
// response), an error text, whether the receiver is one the server may
// not call (allowedTarget or the dialer refused it: no later attempt
// can do better), the start of the response and the real time taken.
type outboundResult struct {
	status   int
	err      string
	refused  bool
	answer   []byte
	duration time.Duration
}

// refusedResult is the result of an attempt to a receiver the server may
// not call.
func refusedResult(err error) outboundResult { return outboundResult{err: err.Error(), refused: true} }

// ok reports whether the response was a 2xx.
func (r outboundResult) ok() bool { return r.err == "" && r.status >= 200 && r.status < 300 }

// OutboundPoster runs attempts on a bounded pool of goroutines. Its zero
// value is ready; Server.Close stops it (in-flight attempts are cancelled
// and their results dropped).
type OutboundPoster struct {
	once     sync.Once
	ctx      context.Context
	cancel   context.CancelFunc
	sem      chan struct{}
	client   *http.Client // verifies TLS certificates
	loopback *http.Client // for loopback https receivers (test servers' self-signed certificates)
	// timeout overrides outboundTimeout (WithWebhookTimeout).
	timeout time.Duration
}

// init makes the poster's clients once: the dialer refuses addresses
// outside loopback unless external is set (and dial, a test's hook,
// replaces it when set); https receivers are verified against the
// system's roots and cas.
func (p *OutboundPoster) init(external bool, cas []*x509.Certificate, dial func(ctx context.Context, network, address string) (net.Conn, error)) {
	p.once.Do(func() {
		p.ctx, p.cancel = context.WithCancel(context.Background())
		p.sem = make(chan struct{}, outboundConcurrency)
		if p.timeout <= 0 {
			p.timeout = outboundTimeout
		}
		var roots *x509.CertPool // nil: the system's
		if len(cas) > 0 {
			var err error
			if roots, err = x509.SystemCertPool(); err != nil {
				roots = x509.NewCertPool()
			}
			for _, c := range cas {
				roots.AddCert(c)
			}
		}
		newClient := func(insecure bool) *http.Client {
			d := &net.Dialer{Timeout: p.timeout, Control: dialGuard(external)}
			dialContext := d.DialContext
			if dial != nil {
				dialContext = dial
			}
			return &http.Client{
				Transport: &http.Transport{
					DialContext:         dialContext,
					TLSClientConfig:     &tls.Config{InsecureSkipVerify: insecure, RootCAs: roots}, //nolint:gosec // loopback test receivers only
					TLSHandshakeTimeout: p.timeout,
					MaxIdleConnsPerHost: outboundConcurrency, // one kept-alive connection per worker
					IdleConnTimeout:     30 * time.Second,
				},
				Timeout: p.timeout,
				// A redirect is a response like any other non-2xx: not followed.
				CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			}
		}
		p.client, p.loopback = newClient(false), newClient(true)
	})
}

// dialGuard refuses connections to addresses outside loopback unless
// external receivers are allowed, so a host name that resolves elsewhere
// cannot sneak past allowedTarget.
func dialGuard(external bool) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		if external {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("%w: %s is not a loopback address", errTargetRefused, host)
		}
		return nil
	}
}

// initOutbound makes the poster's clients with the server's configuration.
func (s *Service) initOutbound() {
	s.Outbound.init(s.Config.ExternalWebhooks, s.Config.Hooks.CAs, s.Config.Hooks.Dial)
}

// Close stops the poster: attempts in flight end, no new one starts.
func (p *OutboundPoster) Close() {
	p.init(false, nil, nil)
	p.cancel()
}

// postOutbound sends req on the pool, never on the caller's goroutine, and
// hands the result to done on the pool's goroutine. Callers schedule within
// a Tx (snapshotting what to send) and done begins its own Tx to record
// the result: no HTTP exchange ever runs while the state lock is held.
// After Close, done is not called.
func (s *Service) postOutbound(req OutboundRequest, done func(outboundResult)) {
	p := &s.Outbound
	s.initOutbound()
	go func() {
		select {
		case p.sem <- struct{}{}:
		case <-p.ctx.Done():
			return
		}
		res := s.doOutbound(req)
		<-p.sem
		if p.ctx.Err() != nil {
			return
		}
		done(res)
	}()
}

// doOutbound makes one attempt. Callers check the target with
// allowedTarget first.
func (s *Service) doOutbound(req OutboundRequest) outboundResult {
	p := &s.Outbound
	start := time.Now()
	hr, err := http.NewRequestWithContext(p.ctx, req.Method, req.URL, bytes.NewReader(req.Body))
	if err != nil {
		return outboundResult{err: err.Error(), duration: time.Since(start)}
	}
	hr.Header = req.Header.Clone()
	if hr.Header == nil {
		hr.Header = http.Header{}
	}
	if hr.Header.Get("User-Agent") == "" {
		hr.Header.Set("User-Agent", "voiceagent-mock-webhooks/1")
	}
	c := p.client
	if IsLoopbackHost(hr.URL.Hostname()) {
		c = p.loopback
	}
	resp, err := c.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			return outboundResult{err: fmt.Sprintf("timeout: no answer within %s", p.timeout), duration: time.Since(start)}
		}
		if ue != nil {
			err = ue.Err // the attempt records the URL apart; its query may hold a token
		}
		return outboundResult{err: err.Error(), refused: errors.Is(err, errTargetRefused), duration: time.Since(start)}
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, outboundMaxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20)) // let the connection be reused
	return outboundResult{status: resp.StatusCode, answer: answer, duration: time.Since(start)}
}

// TaskDeliveryAttempt is the kind of a delivery's next attempt on the
// schedule: Subject is the delivery, N the attempt.
const TaskDeliveryAttempt = "delivery.attempt"
