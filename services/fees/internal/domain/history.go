package domain

// TransferStatus is a transfer's status as the transfers service publishes it; fees keeps,
// for the first-transfer waiver, whether each transfer it has heard of failed.
type TransferStatus string

// The transfers service's statuses.
const (
	TransferPending    TransferStatus = "pending"
	TransferProcessing TransferStatus = "processing"
	TransferCompleted  TransferStatus = "completed"
	TransferFailed     TransferStatus = "failed"
)

// Rank orders statuses along the transfer's state machine (0 for an unknown one): a
// redelivered older event never overwrites a newer status.
func (s TransferStatus) Rank() int {
	switch s {
	case TransferPending:
		return 1
	case TransferProcessing:
		return 2
	case TransferCompleted, TransferFailed:
		return 3
	default:
		return 0
	}
}
