package cost

import (
	"strings"
	"testing"
)

func TestSlotsWarning(t *testing.T) {
	use := func(pending, accepted int) *ChannelUse {
		return &ChannelUse{Channels: []ChannelLoad{{Ends: "alice–bob", MaxPending: pending, MaxAccepted: accepted}}}
	}
	for _, tc := range []struct {
		name         string
		failures     int
		channels     *ChannelUse
		wantContains string // "" wants no warning
	}{
		{"slots more than half full", 568, use(422, 483), "568 payment(s) failed with FAILURE_REASON_INSUFFICIENT_BALANCE while alice–bob held up to 422 HTLCs in flight of its 483 slots"},
		{"half full is not enough", 3, use(241, 483), ""},
		{"no such failure", 0, use(422, 483), ""},
		{"cap unknown", 5, use(422, 0), ""},
		{"no channel readings", 5, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Case{ID: "c", Channels: tc.channels}
			got := c.SlotsWarning(tc.failures)
			if tc.wantContains == "" && got != "" || tc.wantContains != "" && !strings.Contains(got, tc.wantContains) {
				t.Errorf("got %q\nwant it to contain %q", got, tc.wantContains)
			}
			if got != "" && !strings.Contains(got, "at or below 241") {
				t.Errorf("no limit named: %q", got)
			}
		})
	}
}

func TestFewUpdatesPerPaymentKeepTheirDigits(t *testing.T) {
	u := &ChannelUse{UpdatesPerPayment: 27.0 / 2407, Channels: []ChannelLoad{{Ends: "alice–bob", MaxPending: 429, MaxAccepted: 483}}}
	if got, want := u.text(), "0.011 commitment updates per payment over 1 channel (alice–bob), at most 429 HTLCs in flight of 483"; got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
