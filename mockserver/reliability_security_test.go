package mockserver

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// findStrings walks every value reachable from v (pointers, interfaces,
// structs with their unexported fields, slices, arrays, maps) and calls
// found with the path of each string or byte slice that contains one of
// needles. Functions and channels are not entered.
func findStrings(v reflect.Value, needles []string, found func(path, needle string)) {
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string, depth int)
	check := func(s, path string) {
		for _, n := range needles {
			if strings.Contains(s, n) {
				found(path, n)
			}
		}
	}
	walk = func(v reflect.Value, path string, depth int) {
		if !v.IsValid() || depth > 60 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			check(v.String(), path)
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Pointer {
				if seen[v.Pointer()] {
					return
				}
				seen[v.Pointer()] = true
			}
			walk(v.Elem(), path, depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name, depth+1)
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				if v.Kind() == reflect.Slice {
					check(string(v.Bytes()), path)
				} else {
					b := make([]byte, v.Len())
					for i := range b {
						b[i] = byte(v.Index(i).Uint())
					}
					check(string(b), path)
				}
				return
			}
			if v.Kind() == reflect.Slice && !v.IsNil() {
				if seen[v.Pointer()] && v.Len() > 0 {
					return
				}
				seen[v.Pointer()] = true
			}
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				k := it.Key()
				walk(k, path+"{key}", depth+1)
				walk(it.Value(), fmt.Sprintf("%s[%v]", path, k), depth+1)
			}
		}
	}
	walk(v, "", 0)
}

func TestFindStrings(t *testing.T) {
	t.Parallel()
	type inner struct {
		b []byte
		m map[string]any
	}
	v := &struct {
		a string
		p *inner
	}{"x", &inner{b: []byte("has SECRET here"), m: map[string]any{"k": []string{"no", "SECRET!"}}}}
	var paths []string
	findStrings(reflect.ValueOf(v), []string{"SECRET"}, func(path, _ string) { paths = append(paths, path) })
	assert.ElementsMatch(t, []string{".p.b", ".p.m[k][1]"}, paths)
}

// TestTheServerKeepsNoKeyValue mints keys every way the API mints them
// (NewAccount, the admin API, signup, POST /v1/keys, an agency's
// issue_key), with Idempotency-Keys and replays, uses them, and then walks
// everything the server keeps (store, idempotency records, journal, usage
// log, rate-limit buckets, fault rules): no key value is there, only its
// SHA-256 and its 20-character prefix. Key lookups are by that hash (a map
// of hashes, then a constant-time comparison of the hash), so no
// comparison ever runs over the key itself.
func TestTheServerKeepsNoKeyValue(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimits(false))
	keys := []string{acct.APIKey}

	admin := rawDo(t, http.MethodPost, srv.AdminURL+"/accounts", `{"business_name":"Admin made"}`)
	require.Equal(t, http.StatusCreated, admin.status, "%s", admin.body)
	keys = append(keys, admin.json["api_key"].(string))

	// Signup: the request step, then the verify step with the emailed code,
	// sent twice with one Idempotency-Key.
	req := rawDo(t, http.MethodPost, srv.URL+"/v1/signup", `{"business_name":"Signed up","email":"signed@example.com"}`)
	require.Equal(t, http.StatusOK, req.status, "%s", req.body)
	otp := srv.Outbox("signed@example.com")
	require.NotEmpty(t, otp)
	verify := fmt.Sprintf(`{"business_name":"Signed up","email":"signed@example.com","challenge_id":%q,"otp_code":%q}`,
		req.json["challenge_id"], otp[len(otp)-1].OTPCode)
	for range 2 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/signup", verify, "Idempotency-Key", "signup-1")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		keys = append(keys, r.json["api_key"].(string))
	}

	// POST /v1/keys with the session, and its replay.
	for range 2 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/keys", `{"name":"minted"}`,
			"Cookie", sessionCookie+"="+acct.Session, "Idempotency-Key", "key-1")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		keys = append(keys, r.json["key"].(string))
	}

	// An agency's partner key.
	boot := rawDo(t, http.MethodPost, srv.URL+"/v1/agency-profile", `{"action":"bootstrap","brand":{"name":"A"},"support":{"email":"a@example.com","ownerName":"A","coverage":"c"}}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, boot.status, "%s", boot.body)
	partner := boot.json["profile"].(map[string]any)["partnerId"].(string)
	issued := rawDo(t, http.MethodPost, srv.URL+"/v1/agency-profile", `{"action":"issue_key","partnerId":"`+partner+`","name":"partner","scopes":["calls:read"]}`,
		append(bearer(acct.APIKey), "Idempotency-Key", "issue-1")...)
	require.Equal(t, http.StatusOK, issued.status, "%s", issued.body)
	keys = append(keys, issued.json["key"].(map[string]any)["key"].(string))

	var secrets []string
	for _, k := range keys {
		require.True(t, strings.HasPrefix(k, keyPrefix), k)
		assert.NotEqual(t, http.StatusUnauthorized, rawDo(t, http.MethodGet, srv.URL+"/v1/calls", "", bearer(k)...).status, "the key works")
		rec := srv.keyRecord(k)
		require.NotNil(t, rec, "a record per key")
		assert.Equal(t, sha256.Sum256([]byte(k)), rec.Hash)
		assert.Equal(t, k[:keyShownLen], rec.Prefix)
		secrets = append(secrets, strings.TrimPrefix(k, keyPrefix)[keyShownLen-len(keyPrefix):]) // the part never shown
	}

	check := func(name string, mu interface {
		Lock()
		Unlock()
	}, v any) {
		mu.Lock()
		defer mu.Unlock()
		findStrings(reflect.ValueOf(v), secrets, func(path, _ string) {
			t.Errorf("a key value is kept in %s%s", name, path)
		})
	}
	check("the store", &srv.mu, srv.st)
	check("the idempotency records", &srv.idem.mu, srv.idem.entries)
	check("the journal", &srv.journal.mu, srv.journal.buf)
	check("the usage log", &srv.usage.mu, srv.usage.t)
	check("the rate limits", &srv.limits.mu, srv.limits.buckets)
	check("the fault rules", &srv.faults.mu, srv.faults.rules)
}
