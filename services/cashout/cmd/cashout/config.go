package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/internal/domain"
)

// defaultBankCodes are the acquiring institution ids (DE 32) the gateway knows when
// CASHOUT_BANK_CODES is unset: the five banks' universal branch codes.
var defaultBankCodes = []string{
	atmnet.AcquirerStandardBank + "=standard_bank",
	atmnet.AcquirerABSA + "=absa",
	atmnet.AcquirerFNB + "=fnb",
	atmnet.AcquirerNedbank + "=nedbank",
	atmnet.AcquirerCapitec + "=capitec",
}

// maxTransmissionSkew bounds CASHOUT_TRANSMISSION_SKEW.
const maxTransmissionSkew = 24 * time.Hour

// Config is the gateway's configuration: CASHOUT_-prefixed unless noted (docs/cashout.md).
type Config struct {
	// GRPCAddr serves gRPC health and reflection only: the gateway has no gRPC API.
	GRPCAddr string `env:"GRPC_ADDR" default:"127.0.0.1:9090"`
	// ISOAddr is where the ATM switches connect (ISO 8583 over TCP).
	ISOAddr string `env:"ISO_ADDR" default:"127.0.0.1:8583"`
	// ISOMaxConnections caps the switch connections open at once; past it a new connection is
	// closed as soon as it is accepted.
	ISOMaxConnections int `env:"ISO_MAX_CONNECTIONS" default:"128"`
	// ISOIdleTimeout closes a connection on which no frame has arrived for that long: longer
	// than the switch's echo (0800) interval.
	ISOIdleTimeout time.Duration `env:"ISO_IDLE_TIMEOUT" default:"5m"`
	// TransmissionSkew is how far a withdrawal's DE 7 (transmission date and time) may be from
	// the gateway's clock; further, the 0200 is refused (30).
	TransmissionSkew time.Duration `env:"TRANSMISSION_SKEW" default:"5m"`
	// MetricsAddr, when set, serves Prometheus metrics and the profiler on a listener of its
	// own.
	MetricsAddr   string `env:"METRICS_ADDR"`
	TransfersAddr string `env:"TRANSFERS_ADDR,noprefix" required:"true"`
	IdentityAddr  string `env:"IDENTITY_ADDR,noprefix" required:"true"`
	// ServiceSecret authenticates the gateway to identity's IssueServiceToken as atm-gateway.
	ServiceSecret string `env:"SERVICE_SECRET" required:"true" secret:"true"`
	// ZonePINKeys are "<id>:<key>:<acquirer id>[+<acquirer id>…]" (hex or base64 AES key, and
	// the DE 32 ids the key was issued to), the current key first; DE 53 names the zone keys of
	// each request. A key without acquirer ids fails the start: it would speak for any bank.
	ZonePINKeys []string `env:"ZONE_PIN_KEYS" required:"true" secret:"true"`
	// ZoneMACKeys are "<id>:<key>" (hex or base64 AES key): the MAC key of the zone PIN key of
	// the same id, which authenticates every message of that link both ways (DE 64/128).
	ZoneMACKeys []string `env:"ZONE_MAC_KEYS" required:"true" secret:"true"`
	// BankCodes are "<acquirer id>=<bank>" (standard_bank, absa, fnb, nedbank, capitec).
	BankCodes []string `env:"BANK_CODES"`
	// RequestTimeout bounds each call to transfers; keep it below the switch's own timeout.
	RequestTimeout time.Duration `env:"REQUEST_TIMEOUT" default:"10s"`
	// StandInWindow is how long a stand-in reversal is retried before on-call must act.
	StandInWindow   time.Duration `env:"STAND_IN_WINDOW" default:"10m"`
	Environment     string        `env:"THUMELA_ENV,noprefix" default:"production"`
	LogLevel        string        `env:"LOG_LEVEL,noprefix" default:"info"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" default:"15s"`
}

// parsed is what validate makes of the configuration.
type parsed struct {
	zones *atmnet.Zones
	banks domain.BankCodes
}

// validate checks what the tags cannot. Errors name variables, never values.
func (c *Config) validate() (parsed, error) {
	var p parsed
	var errs []error
	var err error
	pinKeys, err := atmnet.ParseZoneKeys(c.ZonePINKeys)
	if err != nil {
		errs = append(errs, fmt.Errorf("CASHOUT_ZONE_PIN_KEYS: %w", err))
	}
	macKeys, err := atmnet.ParseMACKeys(c.ZoneMACKeys)
	if err != nil {
		errs = append(errs, fmt.Errorf("CASHOUT_ZONE_MAC_KEYS: %w", err))
	}
	if pinKeys != nil && macKeys != nil {
		if p.zones, err = atmnet.NewZones(pinKeys, macKeys); err != nil {
			errs = append(errs, fmt.Errorf("CASHOUT_ZONE_MAC_KEYS: %w", err))
		}
	}
	codes := c.BankCodes
	if len(codes) == 0 {
		codes = defaultBankCodes
	}
	if p.banks, err = domain.ParseBankCodes(codes); err != nil {
		errs = append(errs, fmt.Errorf("CASHOUT_BANK_CODES: %w", err))
	}
	if p.zones != nil && p.banks != nil {
		// A key bound to an id the gateway pays out for no bank is a typo (often a dropped
		// leading zero): every request under it would be refused.
		for _, id := range p.zones.IDs() {
			z, _ := p.zones.Zone(id)
			for _, a := range z.Acquirers() {
				if _, err := p.banks.Bank(a); err != nil {
					errs = append(errs, fmt.Errorf("CASHOUT_ZONE_PIN_KEYS: zone keys %s are bound to acquirer id %s, which CASHOUT_BANK_CODES does not list", id, a))
				}
			}
		}
	}
	if c.RequestTimeout <= 0 {
		errs = append(errs, errors.New("CASHOUT_REQUEST_TIMEOUT must be positive"))
	}
	if c.StandInWindow <= 0 {
		errs = append(errs, errors.New("CASHOUT_STAND_IN_WINDOW must be positive"))
	}
	if c.ISOMaxConnections <= 0 {
		errs = append(errs, errors.New("CASHOUT_ISO_MAX_CONNECTIONS must be positive"))
	}
	if c.ISOIdleTimeout <= 0 {
		errs = append(errs, errors.New("CASHOUT_ISO_IDLE_TIMEOUT must be positive"))
	}
	// Past 24 h the check means little, and DE 7 has no year: the gateway reads it as the
	// nearest instant, at most six months away.
	if c.TransmissionSkew <= 0 || c.TransmissionSkew > maxTransmissionSkew {
		errs = append(errs, fmt.Errorf("CASHOUT_TRANSMISSION_SKEW must be positive and at most %s", maxTransmissionSkew))
	}
	if c.ShutdownTimeout <= 0 {
		errs = append(errs, errors.New("CASHOUT_SHUTDOWN_TIMEOUT must be positive"))
	}
	return p, errors.Join(errs...)
}
