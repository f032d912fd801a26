package postgres

// The usage query and its arguments, for the test that measures what it reads.
var (
	UsageSQL  = usageSQL
	UsageArgs = usageArgs
)
