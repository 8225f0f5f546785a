// Package val holds the small value helpers the mock server's domains
// share: pointers to values, copies that never share the store's slices,
// first non-empty values, times in UTC, null for empty values.
package val

import (
	"slices"
	"time"
)

// Day is 24 hours.
const Day = 24 * time.Hour

// ZeroTime is the "no bound" of a time range.
var ZeroTime time.Time

// Nullable shows an empty string as JSON null.
func Nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// NullIfEmpty is s for a struct view's nullable member, nil (null) when
// *s is "". The view shares the record's string without a copy: views are
// encoded before the Tx that read the record ends, so before it can change.
func NullIfEmpty(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

// Set copies *src into *dst when src is not nil.
func Set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// Str is a string member of a decoded object ("" when absent or not a
// string).
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// UtcPtr returns a pointer to t in UTC.
func UtcPtr(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

// NonNil is a copy of s, empty rather than nil, so a view shows [] and
// never shares the store's slice.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

// Strp returns a pointer to s, nil for "".
func Strp[S ~string](s S) *S {
	if s == "" {
		return nil
	}
	return &s
}

// Strings returns a copy of in as another string type: a record's []string
// as the SDK's []voiceagent.Scope, for example.
func Strings[T, S ~string](in []S) []T {
	out := make([]T, len(in))
	for i, s := range in {
		out[i] = T(s)
	}
	return out
}

// Later returns now, or a nanosecond after prev when now is not later, so
// updated_at always moves.
func Later(prev, now time.Time) time.Time {
	now = now.UTC()
	if !now.After(prev) {
		return prev.Add(time.Nanosecond)
	}
	return now
}

// FirstNonEmpty returns the first value that is not "".
func FirstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// DerefOrNil shows a nil string pointer as null.
func DerefOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TimeOrNull shows a zero time as null.
func TimeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}
