package postgres

// The usage query and its arguments, for the test that measures what it reads.
var (
	UsageSQL  = usageSQL
	UsageArgs = usageArgs
)

// The charge claim's statement and the setting it runs under, for the test of its plan.
var (
	ChargeDueSQL    = chargeDueSQL
	InIndexOrderSQL = inIndexOrderSQL
)
