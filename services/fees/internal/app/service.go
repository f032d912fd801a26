// Package app holds the fees use cases: listing the banks' fee schedules, quoting a transfer,
// recording the transfer history behind the first-transfer waiver, and publishing the fee
// schedule for the transfers service.
package app

import "log/slog"

// Service implements the use cases.
type Service struct {
	fees     BankFees
	history  TransferHistory // nil: the waiver is not applied yet
	recorded *recentTransfers
	logger   *slog.Logger
}

// New returns the service; history may be nil (no waiver, nothing recorded).
func New(fees BankFees, history TransferHistory, logger *slog.Logger) *Service {
	return &Service{fees: fees, history: history, recorded: newRecentTransfers(rememberedTransfers), logger: logger}
}
