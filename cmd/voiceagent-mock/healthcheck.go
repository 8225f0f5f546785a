package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// healthcheckTimeout bounds the whole health request of the healthcheck
// subcommand.
const healthcheckTimeout = 5 * time.Second

// adminRealmChallenge is what the admin API's 401 responses carry in
// WWW-Authenticate: a 401 with it comes from a serving mock.
const adminRealmChallenge = `realm="voiceagent-mock admin"`

// healthcheck is the healthcheck subcommand: it reads the same flags and
// variables as the server, asks GET /_mock/health of the server at -addr
// (an address of every interface, such as 0.0.0.0 or [::], is asked on
// loopback) with the admin token when one is configured, and returns
// exitOK when the server responds 200, exitFailed otherwise. Without a
// configured token, a server that generated its own token responds 401 with the
// admin API's challenge, which also counts as serving: the subcommand
// cannot know that token. It needs no shell and no other program, for
// HEALTHCHECK in an image that has neither.
func healthcheck(ctx context.Context, args []string, env func(string) (string, bool), stdout, stderr io.Writer) int {
	cfg, _, err := parseConfig(args, env)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, "Usage: voiceagent-mock healthcheck [flags]\n\nAsks GET /_mock/health of the server the same flags and variables configure\n(-addr, -admin-token) and exits 0 when it answers, 1 otherwise.")
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "voiceagent-mock healthcheck: %v\n", err)
		return exitBadArgs
	}
	target, err := healthcheckAddr(cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "voiceagent-mock healthcheck: %v\n", err)
		return exitBadArgs
	}
	token := cfg.adminToken
	if cfg.adminTokenGenerated {
		token = ""
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+target+"/_mock/health", nil)
	if err != nil {
		fmt.Fprintf(stderr, "voiceagent-mock healthcheck: %v\n", err)
		return exitFailed
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		fmt.Fprintf(stderr, "voiceagent-mock healthcheck: %v\n", err)
		return exitFailed
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode == http.StatusOK:
		fmt.Fprintf(stdout, "healthy: %s\n", strings.TrimSpace(string(body)))
		return exitOK
	case resp.StatusCode == http.StatusUnauthorized && token == "" &&
		strings.Contains(resp.Header.Get("Www-Authenticate"), adminRealmChallenge):
		fmt.Fprintln(stdout, "serving: the admin API asks for a token this command was not given")
		return exitOK
	}
	fmt.Fprintf(stderr, "voiceagent-mock healthcheck: GET /_mock/health answered %s: %s\n", resp.Status, strings.TrimSpace(string(body)))
	return exitFailed
}

// healthcheckAddr is the host:port the healthcheck asks for a server
// listening on addr: loopback for an address of every interface.
func healthcheckAddr(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	if port == "0" {
		return "", fmt.Errorf("-addr %s picks a free port: give the port the server listens on", addr)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return net.JoinHostPort(host, port), nil
}
