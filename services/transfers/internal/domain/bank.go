package domain

// Bank is a bank at whose ATMs the recipient withdraws the cash. The values are the fees
// service's bank keys.
type Bank string

// The five banks of the cash-send network, in the product's order.
const (
	StandardBank Bank = "standard_bank"
	ABSA         Bank = "absa"
	FNB          Bank = "fnb"
	Nedbank      Bank = "nedbank"
	Capitec      Bank = "capitec"
)

// Banks lists the banks in the order the product shows them.
var Banks = []Bank{StandardBank, ABSA, FNB, Nedbank, Capitec}

var bankNames = map[Bank]string{
	StandardBank: "Standard Bank",
	ABSA:         "ABSA",
	FNB:          "FNB",
	Nedbank:      "Nedbank",
	Capitec:      "Capitec",
}

// MsgChooseBank is the refusal of a bank that is not one of Banks (a create's, a quote's).
const MsgChooseBank = "Please choose the recipient's bank."

// Known reports whether b is one of Banks.
func (b Bank) Known() bool { _, ok := bankNames[b]; return ok }

// DisplayName is the bank's name as people know it.
func (b Bank) DisplayName() string { return bankNames[b] }
