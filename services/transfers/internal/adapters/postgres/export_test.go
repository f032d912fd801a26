package postgres

// The usage query and its arguments, and the worker's probe, for the tests that measure what
// they read; and the statements whose generic plans plan_test.go checks, with the settings the
// reconciliation's reads run under.
var (
	UsageSQL   = usageSQL
	UsageArgs  = usageArgs
	DueWorkSQL = dueWorkSQL

	PruneCollectionRecordsSQL = pruneCollectionRecordsSQL
	ReconcileTransfersSQL     = reconcileTransfersSQL
	UnbalancedMovementsSQL    = unbalancedMovementsSQL
	ReconcileSettings         = indexOnly
	GetSQL                    = getSQL
	LockOwnedSQL              = lockOwnedSQL
	AwaitingCollectionSQL     = awaitingCollectionSQL
)
