package app

import (
	"log/slog"
	"time"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/seal"

	"github.com/thumela/thumela/services/identity/internal/domain"
)

// MaxAccessTokenTTL is the longest an access token may live: it cannot be revoked, so it must
// be short.
const MaxAccessTokenTTL = 10 * time.Minute

// Config is everything the use cases need to know.
type Config struct {
	Codes          domain.CodePolicy
	Sessions       domain.SessionPolicy
	AccessTokenTTL time.Duration
	Throttle       ThrottlePolicy
	// Issuer is the iss of every token signed (service.TokenIssuer).
	Issuer string
	// Signer signs new tokens; Previous keys still verify tokens signed before a rotation.
	Signer   auth.Signer
	Previous []auth.PublicKey
	// ServiceSecrets maps internal service names to their IssueServiceToken secrets.
	ServiceSecrets map[string]string
	// SealTo is the notifications service's public key: the codes e-mailed travel sealed to it.
	SealTo seal.PublicKey
	// Passkeys is the WebAuthn relying party; an empty RPID turns passkeys off.
	Passkeys PasskeyConfig
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}
