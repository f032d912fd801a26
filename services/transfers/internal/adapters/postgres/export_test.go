package postgres

// The usage query and its arguments, and the worker's probe, for the tests that measure what
// they read.
var (
	UsageSQL   = usageSQL
	UsageArgs  = usageArgs
	DueWorkSQL = dueWorkSQL
)
