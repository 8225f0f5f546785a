package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// journalBody is a body as the journal keeps it, as a string.
func journalBody(body []byte) (string, bool) {
	text, truncated := journalText(body)
	return string(text), truncated
}

func TestJournalBodyRedactsSecretMembersAtAnyDepth(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"otp_code":"123456","email":"a@example.com"}`, `{"otp_code":"[redacted]","email":"a@example.com"}`},
		{`{"otp_code":123456}`, `{"otp_code":"[redacted]"}`},
		{`{"a":{"b":[{"token":"t1"},{"x":"kept"}]}}`, `{"a":{"b":[{"token":"[redacted]"},{"x":"kept"}]}}`},
		{`{"custom_headers":{"X-A":"v1","X-B":null}}`, `{"custom_headers":{"X-A":"[redacted]","X-B":null}}`},
		{`{"secrets":["s1",{"secret":"s2","expires":1}],"n":1.50}`, `{"secrets":["[redacted]",{"secret":"[redacted]","expires":"[redacted]"}],"n":1.50}`},
		{`{"otp\u005fcode":"654321"}`, `{"otp_code":"[redacted]"}`},
		{`{ "secret" : "s" , "keep" : [ true , false , null ] }`, `{"secret":"[redacted]","keep":[true,false,null]}`},
		{`{"note":"<b>&</b>","token":"x"}`, `{"note":"<b>&</b>","token":"[redacted]"}`},
		{`{"secret_created_at":"2026-01-01T00:00:00Z"}`, `{"secret_created_at":"2026-01-01T00:00:00Z"}`},
		{`[1,2,{"password":"p"}]`, `[1,2,{"password":"[redacted]"}]`},
	}
	for _, c := range cases {
		got, truncated := journalBody([]byte(c.in))
		assert.Equal(t, c.want, got, c.in)
		assert.False(t, truncated)
	}

	// A body naming a secret member that does not parse is not kept.
	got, _ := journalBody([]byte(`{"otp_code":"123456"`))
	assert.NotContains(t, got, "123456")
	assert.Contains(t, got, "[redacted]")

	// A long body is redacted in the part the journal keeps.
	got, truncated := journalBody([]byte(`{"otp_code":"999111","pad":"` + strings.Repeat("x", 40_000) + `","token":"t"}`))
	assert.True(t, truncated)
	assert.True(t, strings.HasPrefix(got, `{"otp_code":"[redacted]","pad":"xxx`), got[:40])
	assert.Len(t, got, JournalBodyCap, "the value the cap cuts is kept up to the cap")
	assert.NotContains(t, got, "999111")
	got, _ = journalBody([]byte(`{"pad":"` + strings.Repeat("x", JournalBodyCap) + `","token":"t"}`))
	assert.Len(t, got, JournalBodyCap)
	got, _ = journalBody([]byte(`{"pad":"` + strings.Repeat("x", JournalBodyCap-20) + `","token":"` + strings.Repeat("s", 1000) + `"}`))
	assert.NotContains(t, got, "sss", "a secret value the cap cuts is not kept either")

	// A body without secret members is kept byte for byte (not re-encoded).
	same := "{ \"a\" : 1 ,\n \"b\": \"<x>\" }"
	got, _ = journalBody([]byte(same))
	assert.Equal(t, same, got)
}

func TestJournalBodyRedactsSecretValuesAnywhere(t *testing.T) {
	key := KeyPrefix + strings.Repeat("a1B2", 10)
	in := `key ` + key + ` secret whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldY== link https://x.example/api/auth/magic?token=abc123&x=1`
	got, _ := journalBody([]byte(in))
	assert.NotContains(t, got, key)
	assert.Contains(t, got, key[:KeyShownLen]+"[redacted]")
	assert.Contains(t, got, "whsec_[redacted] link")
	assert.Contains(t, got, "?token=REDACTED&x=1")

	// A key straddling the cap is still found whole, then the text is cut.
	long := strings.Repeat("x", JournalBodyCap-30) + key + strings.Repeat("y", 100)
	got, truncated := journalBody([]byte(long))
	assert.True(t, truncated)
	assert.Len(t, got, JournalBodyCap)
	assert.True(t, strings.HasSuffix(got, key[:KeyShownLen]+"[redacted]"))
	assert.NotContains(t, got, key[KeyShownLen:KeyShownLen+10], "no part of the secret part of the key")

	// Cut at a character boundary.
	got, truncated = journalBody([]byte(strings.Repeat("€", JournalBodyCap)))
	assert.True(t, truncated)
	assert.True(t, utf8.ValidString(got))
	assert.Equal(t, JournalBodyCap-JournalBodyCap%3, len(got))
}

func TestJournalHeadersKeepNamesNotCredentials(t *testing.T) {
	key := KeyPrefix + strings.Repeat("Zz09", 10)
	h := http.Header{
		"Authorization":       {"Bearer " + key},
		"Proxy-Authorization": {"Basic dXNlcjpwYXNz"},
		"Cookie":              {"voiceagent_session=sess_abc; theme=dark"},
		"Set-Cookie":          {"voiceagent_session=sess_abc; Path=/; Max-Age=60; HttpOnly"},
		"X-Payment":           {"proof"},
		"X-Api-Key":           {key},
		"Idempotency-Key":     {"k-1"},
		"X-Upstream-Api-Key":  {"sk_live_upstream"},
		"X-Auth-Token":        {"opaque"},
	}
	text, pairs := appendHeaderText(nil, h)
	got, rest := headerOfText(text, pairs, 0)
	assert.Empty(t, rest, "the text holds the pairs and nothing else")
	assert.Equal(t, 9, pairs)
	assert.Equal(t, "Bearer "+key[:KeyShownLen]+"[redacted]", got.Get("Authorization"))
	assert.Equal(t, "Basic [redacted]", got.Get("Proxy-Authorization"))
	assert.Equal(t, "voiceagent_session=[redacted]; theme=[redacted]", got.Get("Cookie"))
	assert.Equal(t, "voiceagent_session=[redacted]; Path=/; Max-Age=60; HttpOnly", got.Get("Set-Cookie"))
	assert.Equal(t, "[redacted]", got.Get("X-Payment"))
	assert.Equal(t, key[:KeyShownLen]+"[redacted]", got.Get("X-Api-Key"))
	assert.Equal(t, "k-1", got.Get("Idempotency-Key"))
	assert.Equal(t, "[redacted]", got.Get("X-Upstream-Api-Key"), "a credential of another service, by its name")
	assert.Equal(t, "[redacted]", got.Get("X-Auth-Token"))
	assert.Equal(t, "Bearer "+key, h.Get("Authorization"), "the request's own headers are left alone")
	assert.Equal(t, "[redacted]", string(appendRedactedCredentials(nil, "garbage")))
	assert.Equal(t, "Bearer [redacted]", string(appendRedactedCredentials(nil, "Bearer not-a-key")))
	b, err := json.Marshal(got)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "sess_abc")
}

func TestIsKeyValueIsTheKeyPatternOnAWholeValue(t *testing.T) {
	whole := regexp.MustCompile(`^(?:` + keyValue.String() + `)$`)
	key := KeyPrefix + strings.Repeat("aZ09", KeyRandomLen/4)
	for _, s := range []string{
		key, key[:len(key)-1], key + "x", key[:len(key)-1] + "-", key[:len(key)-1] + "é",
		"voiceagent_test_" + key[len(KeyPrefix):], strings.ToUpper(key), "", KeyPrefix,
	} {
		assert.Equal(t, whole.MatchString(s), isKeyValue(s), "%q", s)
	}
	assert.True(t, isKeyValue(key))
}

func TestPlainForJournalIsWhatTheJournalKeepsAsItIs(t *testing.T) {
	key := KeyPrefix + strings.Repeat("k", KeyRandomLen)
	for _, body := range []string{
		`{"id":"1","name":"Ann","created_at":"2026-01-01T00:00:00Z"}`,
		`{"notes":"call back at 5"}`,
		`{"token":"x"}`, `{"a":{"secret":1}}`, `{"n\u0061me":"x"}`,
		`{"key":"` + key + `"}`, `{"s":"whsec_abc"}`, `{"link":"https://x.example/?token=abc"}`,
		`{"link":"https://x.example/?page=2"}`, `{"snake_case":"a=b"}`,
	} {
		want, _ := journalBody([]byte(body))
		assert.Equal(t, want == body, plainForJournal([]byte(body)), "%s", body)
	}
}

func TestHoldsSecretValueReportsWhatRedactValuesChanges(t *testing.T) {
	key := KeyPrefix + strings.Repeat("k", KeyRandomLen)
	var inputs []string
	for _, pre := range []string{"", "?", "&", "x", "/a?b=1&", "\n", "?a=b=", "?%74oken=1&"} {
		for _, p := range []string{"token", "access_token", "api_key", "password", "secret", "Token", "tokens", "my_token", "X-Api-Key", "%74oken", "page", "author", "auth"} {
			for _, post := range []string{"", "v", "&", "\"", "'", " ", "\t", "\\", "#", "é", "=x", "\xff"} {
				inputs = append(inputs, pre+p+"="+post, `{"a":"`+pre+p+"="+post+`"}`)
			}
		}
	}
	inputs = append(inputs, key, key[:len(key)-1], "whsec_", "whsec_a", "x=1 token", `{"a_b":"c=d"}`, "", "token=x?token=")
	for _, in := range inputs {
		assert.Equal(t, redactValues(in) != in, holdsSecretValue([]byte(in)), "%q", in)
	}
}

// TestSecretNamesAreFoundByWhatTheyHold: a header or query parameter
// carrying a credential is known by its name, whatever the service.
func TestSecretNamesAreFoundByWhatTheyHold(t *testing.T) {
	for _, name := range []string{
		"token", "access_token", "api_key", "apikey", "X-Api-Key", "X-API-KEY", "key", "X-Client-Secret",
		"password", "passwd", "X-Auth-Token", "auth", "X-Auth", "Authorization", "X-Amz-Security-Token",
		"client_credentials", "X-Session-Id", "X-Voiceagent-Cron-Secret", "refresh-token",
	} {
		assert.True(t, IsSecretName(name), name)
	}
	for _, name := range []string{
		"Idempotency-Key", "idempotency_key", "Content-Type", "author", "Www-Authenticate", "page", "limit",
		"X-Request-Id", "Accept", "business_id", "", "webhook-signature",
	} {
		assert.False(t, IsSecretName(name), name)
	}
}

// TestSecretQueryParametersAreRedactedByName: a query keeps every value
// but those of parameters named as credentials, in a URL as in a query.
func TestSecretQueryParametersAreRedactedByName(t *testing.T) {
	for in, want := range map[string]string{
		"page=2&api-key=abc&X-Amz-Security-Token=t1": "page=2&api-key=REDACTED&X-Amz-Security-Token=REDACTED",
		"client_secret=s&token=&limit=5":             "client_secret=REDACTED&token=REDACTED&limit=5",
		"%61pi%5Fkey=abc":                            "%61pi%5Fkey=REDACTED",
		"idempotency_key=k&author=ann":               "idempotency_key=k&author=ann",
	} {
		assert.Equal(t, want, RedactQuery(in), in)
	}
	assert.Equal(t, "https://hooks.example/in?token=REDACTED&v=1#top", RedactURL("https://hooks.example/in?token=t0ps3cret&v=1#top"))
	assert.Equal(t, "https://hooks.example/in", RedactURL("https://hooks.example/in"))
	assert.Equal(t, `{"link":"https://x.example/cb?sig=1&apiKey=REDACTED"}`, redactValues(`{"link":"https://x.example/cb?sig=1&apiKey=abc"}`))
}

func TestAPIPathAddsThePrefixOnce(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "/v1/calls": "/api/v1/calls", "/api/v1/calls": "/api/v1/calls", "v1/calls": "/api/v1/calls",
		"/v1/*": "/api/v1/*", "/api/*": "/api/*", "/api": "/api", "*": "/api*", "/openapi.yaml": "/api/openapi.yaml",
	} {
		assert.Equal(t, want, admin.APIPath(in), in)
	}
	assert.True(t, admin.PathMatches(admin.APIPath("/v1/num*"), "/api/v1/numbers"))
	assert.True(t, admin.RequestFilter{Path: "/v1/calls"}.Match(&admin.JournalEntry{Seq: 1, Path: "/api/v1/calls"}))
	assert.False(t, admin.RequestFilter{Path: "/v1/calls", After: 1}.Match(&admin.JournalEntry{Seq: 1, Path: "/api/v1/calls"}))
}

func TestJournalHeadersAreCutAfterTheyAreRedacted(t *testing.T) {
	key := KeyPrefix + strings.Repeat("Ab12", 10)
	long := strings.Repeat("x ", (MaxJournalField-36)/2) + key + " " + strings.Repeat("y", 500)
	h := http.Header{"X-Long": {long}, strings.Repeat("N", MaxJournalField+5): {"v"}}
	text, pairs := appendHeaderText(nil, h)
	require.Equal(t, 2, pairs)
	got, _ := headerOfText(text, pairs, 0)
	v := got.Get("X-Long")
	assert.NotContains(t, v, key[KeyShownLen:36], "the key straddling the cut is redacted, not cut in two")
	assert.True(t, strings.HasPrefix(v, strings.Repeat("x ", (MaxJournalField-36)/2)+key[:KeyShownLen]+"[redacted]"))
	assert.Contains(t, v, " bytes cut]")
	assert.LessOrEqual(t, len(v), MaxJournalField+len("…[9999 bytes cut]"))
	for name := range got {
		if name != "X-Long" {
			assert.Equal(t, Truncate(strings.Repeat("N", MaxJournalField+5), MaxJournalField), name)
		}
	}
}

func TestJournalHeaderTextsStayWithinTheirBound(t *testing.T) {
	h := http.Header{}
	for i := range 40 {
		h.Set(fmt.Sprintf("X-H%02d", i), strings.Repeat("v", 1000))
	}
	text, pairs := appendHeaderText([]byte("before"), h)
	assert.Less(t, pairs, 40, "pairs past the bound are left out")
	assert.Greater(t, pairs, 10)
	assert.LessOrEqual(t, len(text)-len("before"), maxHeaderText)
	got, rest := headerOfText(text[len("before"):], pairs, 0)
	assert.Empty(t, rest)
	assert.Len(t, got, pairs)

	// A request with such headers is journaled (its texts fit the ring's
	// smallest chunk) and reads back.
	j := newJournal(10, platform.DefaultJournalBytes)
	r := httptest.NewRequest(http.MethodGet, "/api/v1/leads", nil)
	r.Header = h
	j.add(newJournalRecord(admin.JournalEntry{RequestID: "r1"}, r, nil, &Response{Status: 200, Header: h, Body: []byte(`{}`)}))
	e := j.List(nil)[0]
	assert.Len(t, e.Request.Header, pairs)
	assert.Equal(t, "r1", e.Response.Header.Get("X-Request-Id"))
	for name, vs := range e.Request.Header {
		assert.Equal(t, []string{strings.Repeat("v", 1000)}, vs, name)
	}
}
