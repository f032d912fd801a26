package app

import (
	"context"

	"github.com/thumela/thumela/services/notifications/internal/domain"
)

// ProviderReport is one delivery report from the SMS provider.
type ProviderReport struct {
	domain.Report
	// UserSuppliedID is what the provider echoes of ours ("thm<row id>"); may be empty.
	UserSuppliedID string
}

// SMSTarget names the SMS delivery a provider's report is about.
type SMSTarget struct {
	ProviderMessageID string
	// RowID is our own id, echoed in the report's userSuppliedId; 0 when it carries none.
	RowID int64
}

// ApplyReports applies the provider's delivery reports, a request's batch in one transaction:
// each to the delivery it names, never backwards, each status change with its event. Reports
// naming no delivery of ours (forged, or another account's) are ignored. An error (the
// database) means none was applied and the provider should send them again.
func (d *Deliverer) ApplyReports(ctx context.Context, reports []ProviderReport) (applied, ignored int, err error) {
	targets := make([]SMSTarget, 0, len(reports))
	named := make([]ProviderReport, 0, len(reports))
	for _, r := range reports {
		rowID, _ := ParseUserSuppliedID(r.UserSuppliedID)
		if r.ProviderMessageID == "" && rowID == 0 {
			ignored++
			continue
		}
		targets = append(targets, SMSTarget{ProviderMessageID: r.ProviderMessageID, RowID: rowID})
		named = append(named, r)
	}
	if len(targets) == 0 {
		return 0, ignored, nil
	}
	now := d.cfg.Now()
	var found, missing int
	var changes []domain.Delivery // each delivery as a report left it, when the report changed it
	err = d.repo.UpdateSMSBatch(ctx, targets, func(i int, del *domain.Delivery) {
		if del == nil {
			missing++
			return
		}
		found++
		if del.Apply(named[i].Report, now) {
			changes = append(changes, *del)
		}
	})
	if err != nil {
		return 0, ignored, err
	}
	for _, del := range changes {
		if del.Status == domain.StatusFailed {
			d.tel.failure(ctx, del.Channel, ProviderBulkSMS, "report")
		}
		d.logger.InfoContext(ctx, "delivery report applied", "request_id", del.RequestID.String(), "status", string(del.Status))
	}
	return found, ignored + missing, nil
}
