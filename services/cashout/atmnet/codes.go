package atmnet

// Response codes (DE 39) the gateway answers with; docs/cashout.md maps each to its cause.
const (
	RespApproved           = "00"
	RespInvalidTransaction = "12" // already collected; an unsupported MTI or processing code
	RespInvalidAmount      = "13" // the amount typed is not the voucher's; not in rand
	RespInvalidVoucher     = "14" // not a voucher number ("invalid card number")
	RespNoOriginal         = "25" // a reversal that does not match the withdrawal it names
	RespFormatError        = "30"
	RespBankNotSupported   = "31" // DE 32 names no bank this gateway pays out for
	RespExpired            = "54"
	RespIncorrectPIN       = "55" // voucher number, PIN or phone number wrong: one answer for all
	RespNotPermitted       = "57" // another bank's ATM
	RespRestricted         = "62" // cancelled by the sender
	// RespSecurityViolation: ISO 8583:1987's "security violation": a MAC missing or wrong, or
	// DE 32 naming an acquirer the zone keys (DE 53) were not issued to.
	RespSecurityViolation = "63"
	RespPINTriesExceeded  = "75" // locked for 24 hours
	RespPINCryptoError    = "81" // unknown zone keys (DE 53), or a PIN block that does not decipher
	RespIssuerUnavailable = "91" // transfers unreachable or too slow: try again later
	RespDuplicate         = "94" // a repeat of a reversed request, or another request under a used RRN
	RespSystemMalfunction = "96"
)

var responseTexts = map[string]string{
	RespApproved:           "Approved",
	RespInvalidTransaction: "This voucher has already been collected, or the transaction is not supported",
	RespInvalidAmount:      "The amount must be the voucher's full amount, in rand",
	RespInvalidVoucher:     "This is not a valid voucher number",
	RespNoOriginal:         "No such original withdrawal: nothing was reversed",
	RespFormatError:        "The request was malformed",
	RespBankNotSupported:   "This bank's ATMs do not pay out Thumela vouchers",
	RespExpired:            "This voucher has expired",
	RespIncorrectPIN:       "The voucher number, PIN or phone number is incorrect",
	RespNotPermitted:       "This voucher can only be collected at an ATM of the bank the sender chose",
	RespRestricted:         "This voucher was cancelled by the sender",
	RespSecurityViolation:  "The request could not be authenticated (security violation)",
	RespPINTriesExceeded:   "Too many incorrect attempts: the voucher is locked for 24 hours",
	RespPINCryptoError:     "The PIN could not be read (PIN key error)",
	RespIssuerUnavailable:  "The service is unavailable: please try again later",
	RespDuplicate:          "Duplicate transmission: this request was reversed or its reference is taken; start a new withdrawal",
	RespSystemMalfunction:  "System error: please try again later",
}

// ResponseText says what response code code means for the person at the ATM, in words (the
// development stack's /dev/atm shows it); an unknown code gets a generic text.
func ResponseText(code string) string {
	if t, ok := responseTexts[code]; ok {
		return t
	}
	return "Declined (response code " + code + ")"
}
