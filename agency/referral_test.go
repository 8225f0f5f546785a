package agency_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/signup"
)

// A partner made by bootstrap is known to signup: its id works as a
// referral code (before the fix it was rejected as unknown until the partner
// had enrolled a client).
func TestBootstrappedPartnerCanReferSignups(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	anon := w.env.ClientFor("")
	ch, err := anon.Signup.Request(w.ctx, &signup.RequestParams{Fields: signup.Fields{
		BusinessName: "Referred Co", Email: "owner@referred.example", ReferralCode: w.partner,
	}})
	require.NoError(t, err)
	assert.NotEmpty(t, ch.ChallengeID)
}
