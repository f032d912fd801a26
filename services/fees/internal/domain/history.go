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

// Known reports whether s is one of the transfers service's statuses; an event with another
// is never recorded. (Their order no longer matters here: the record is written when a
// transfer is first heard of and again only when it fails, so no older event can undo a newer.)
func (s TransferStatus) Known() bool {
	switch s {
	case TransferPending, TransferProcessing, TransferCompleted, TransferFailed:
		return true
	}
	return false
}
