package app

import (
	"context"
	"errors"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// ProviderReport is one delivery report from the SMS provider.
type ProviderReport struct {
	domain.Report
	// UserSuppliedID is what the provider echoes of ours ("thm<row id>"); may be empty.
	UserSuppliedID string
}

// ApplyReports applies the provider's delivery reports: each to the delivery it names, never
// backwards, each status change with its event. Reports naming no delivery of ours (forged,
// or another account's) are ignored. An error (the database) means none after it was applied
// and the provider should send them again.
func (d *Deliverer) ApplyReports(ctx context.Context, reports []ProviderReport) (applied, ignored int, err error) {
	for _, r := range reports {
		rowID, _ := ParseUserSuppliedID(r.UserSuppliedID)
		if r.ProviderMessageID == "" && rowID == 0 {
			ignored++
			continue
		}
		now := d.cfg.Now()
		changed := false
		del, err := d.repo.UpdateSMS(ctx, r.ProviderMessageID, rowID, func(x *domain.Delivery) error {
			changed = x.Apply(r.Report, now)
			return nil
		})
		if errors.Is(err, domain.ErrNotFound) {
			ignored++
			continue
		}
		if err != nil {
			return applied, ignored, err
		}
		applied++
		if changed && del.Status == domain.StatusFailed {
			d.tel.failure(ctx, del.Channel, ProviderBulkSMS, "report")
		}
		if changed {
			d.logger.InfoContext(ctx, "delivery report applied", "request_id", del.RequestID.String(), "status", string(del.Status))
		}
	}
	return applied, ignored, nil
}
