package wire

import (
	"errors"
	"time"
)

// TimeLayout is the one form of every time the API and the admin API show:
// RFC 3339 in UTC with nine fractional digits, so that string order is
// time order (time.Time's own encoding drops trailing zeros, and
// "…:00Z" sorts after "…:00.000000001Z"). time.Parse with
// time.RFC3339Nano reads it.
const TimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

// errYear is the error of a time RFC 3339 cannot write.
var errYear = errors.New("wire: the time's year is outside of 0 to 9999, which RFC 3339 cannot write")

// AppendTime appends t, in UTC, in TimeLayout to dst. As time.Time's
// MarshalJSON does, it fails for a year outside 0 to 9999.
func AppendTime(dst []byte, t time.Time) ([]byte, error) {
	t = t.UTC()
	if y := t.Year(); y < 0 || y > 9999 {
		return dst, errYear
	}
	return t.AppendFormat(dst, TimeLayout), nil
}
