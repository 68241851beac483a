package store

import (
	"context"
	"fmt"
)

// ClaimTOTPStep records step as the organization's last accepted TOTP time
// step, only if it is later than the one recorded (D63). It reports false
// when step or a later one was already accepted: one conditional UPDATE,
// so two nodes given the same code at once cannot both accept it.
func (q *Queries) ClaimTOTPStep(ctx context.Context, orgID string, step int64) (bool, error) {
	n, err := q.exec(ctx, `UPDATE organizations SET totp_last_step = ?
		WHERE id = ? AND (totp_last_step IS NULL OR totp_last_step < ?)`, step, orgID, step)
	if err != nil {
		return false, fmt.Errorf("store: claim TOTP step of %s: %w", orgID, classify(err))
	}
	return n == 1, nil
}
