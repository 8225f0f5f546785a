package identity

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSignupPhone(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"+15551234567":      "+15551234567",
		"(555) 123-4567":    "+15551234567",
		"1 555 123 4567":    "+15551234567",
		"555.123.4567":      "+15551234567",
		"+44 20 7946 0000":  "+442079460000",
		"5551234":           "",
		"+0123":             "",
		"call me":           "",
		"+1555+1234567":     "",
		"+1234567890123456": "",
	} {
		got, ok := signupPhone(in)
		assert.Equal(t, want != "", ok, in)
		assert.Equal(t, want, got, in)
	}
}
