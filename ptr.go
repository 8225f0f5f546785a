package voiceagent

import "time"

// Ptr returns a pointer to v, for optional params fields.
func Ptr[T any](v T) *T { return &v }

// String returns a pointer to s.
func String(s string) *string { return &s }

// Int returns a pointer to n.
func Int(n int) *int { return &n }

// Bool returns a pointer to b.
func Bool(b bool) *bool { return &b }

// Float64 returns a pointer to f.
func Float64(f float64) *float64 { return &f }

// Time returns a pointer to t.
func Time(t time.Time) *time.Time { return &t }

// Deref returns *p, or fallback when p is nil: a nil-safe read of an
// optional field (voiceagent.Deref(lead.Name, "")).
func Deref[T any](p *T, fallback T) T {
	if p == nil {
		return fallback
	}
	return *p
}
