package domain

import (
	"testing"

	"github.com/google/uuid"
)

// TestReferralCodeMatchesTheWeb: the codes were computed with node from
// web/src/features/referral/lib/referral-code.ts (referralCode(id)); the server's derivation
// must give the same, or every code already shared would point nowhere.
func TestReferralCodeMatchesTheWeb(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]string{
		"0190a6e2-7c1d-7b3e-9f4a-2b6c8d0e1f23": "THU-FC2SANZQ",
		"00000000-0000-0000-0000-000000000000": "THU-HF65FC8C",
		"ffffffff-ffff-ffff-ffff-ffffffffffff": "THU-HSMVWSBP",
		"3f2504e0-4f89-41d3-9a0c-0305e82c3301": "THU-HV5X7ZJT",
		"0b1f6f8e-2c4a-4d57-9a8e-51c1f0e3a9d2": "THU-M1G9PWFJ", // pinned in referral-code.test.ts
	} {
		if got := ReferralCode(uuid.MustParse(id)); got != want {
			t.Errorf("ReferralCode(%s) = %s, want %s", id, got, want)
		}
	}
}
