// Package atmjourney walks the recipient's half of Thumela against the whole stack running as
// real processes: a sender signs up, saves a card and sends money; the voucher SMS arrives in
// /dev/outbox; the recipient withdraws it at the development ATM (/dev/atm, through the BFF as a
// person reaches it), which speaks ISO 8583 over TCP to the cash-out gateway, which collects the
// voucher from transfers. Its test checks a wrong PIN, an approval, a refused second withdrawal
// and an ATM that cannot dispense (a reversal), and that the sender sees each change. `make
// test-go` runs it after building the binaries (bin/cashout included).
package atmjourney
