package atmnet

// Acquiring institution ids (DE 32) of the five banks whose ATMs pay out Thumela vouchers, by
// default their universal branch codes. The gateway's CASHOUT_BANK_CODES may replace them with
// the codes the switch really sends.
const (
	AcquirerStandardBank = "051001"
	AcquirerABSA         = "632005"
	AcquirerFNB          = "250655"
	AcquirerNedbank      = "198765"
	AcquirerCapitec      = "470010"
)
