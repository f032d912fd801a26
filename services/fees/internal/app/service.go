// Package app holds the fees use cases: listing the banks' fee schedules, quoting a transfer
// at the list price, and publishing the fee schedule for the transfers service. The
// first-transfer waiver is not fees' to decide: the transfers service holds the sender's
// transfers, decides it when it creates one, and quotes the wizard with it (QuoteFee).
package app

import "log/slog"

// Service implements the use cases.
type Service struct {
	fees   BankFees
	logger *slog.Logger
}

// New returns the service.
func New(fees BankFees, logger *slog.Logger) *Service {
	return &Service{fees: fees, logger: logger}
}
