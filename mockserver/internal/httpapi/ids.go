package httpapi

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// idParams are the query parameters that name records by id: each is a
// UUID (the OpenAPI documents say format: uuid). On the admin API only
// business_id is one (fault and delivery ids have their own forms).
var (
	idParams      = []string{"id", "business_id", "agent_id", "lead_id"}
	adminIDParams = []string{"business_id"}
)

// checkIDParams is the one check of ids in queries: an
// id parameter present but empty is 400 bad_request (GET /v1/calls?id=
// must not quietly list every call), a value that is not a UUID is 400
// invalid_request. A well-formed id the caller cannot see is the
// handler's 404.
func (rc *Ctx) checkIDParams() *Error {
	if rc.Request.URL.RawQuery == "" {
		return nil
	}
	names := idParams
	if rc.Route.Auth == AuthAdmin {
		names = adminIDParams
	}
	q := rc.query()
	for _, name := range names {
		vs, ok := q[name]
		if !ok {
			continue
		}
		for _, v := range vs {
			switch {
			case v == "" && name == "id":
				return NewError(http.StatusBadRequest, wire.CodeBadRequest,
					"the id query parameter is empty: send ?id=<uuid> to read one record, or leave it out to list")
			case v == "":
			case !IsUUID(v):
				return InvalidField(name, "must be a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7, not %q", Truncate(v, 64))
			}
		}
	}
	return nil
}

// IsUUID reports whether s is a UUID in its canonical textual form:
// 8-4-4-4-12 hexadecimal digits.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}
