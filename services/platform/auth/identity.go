package auth

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
)

// IdentityKeySource fetches verification keys from identity's GetPublicKeys over conn. That
// method must be Public in identity's policy: a service cannot present a token before it can
// verify one. Keys of the wrong size are skipped rather than failing the whole set.
func IdentityKeySource(conn grpc.ClientConnInterface) KeySource {
	return identityKeys{client: identityv1.NewIdentityServiceClient(conn)}
}

type identityKeys struct {
	client identityv1.IdentityServiceClient
}

func (s identityKeys) PublicKeys(ctx context.Context) ([]PublicKey, error) {
	resp, err := s.client.GetPublicKeys(ctx, &identityv1.GetPublicKeysRequest{})
	if err != nil {
		return nil, fmt.Errorf("auth: identity GetPublicKeys: %w", err)
	}
	keys := make([]PublicKey, 0, len(resp.GetKeys()))
	for _, k := range resp.GetKeys() {
		if len(k.GetEd25519PublicKey()) != ed25519.PublicKeySize || k.GetKeyId() == "" {
			continue
		}
		keys = append(keys, PublicKey{ID: k.GetKeyId(), Key: ed25519.PublicKey(k.GetEd25519PublicKey())})
	}
	return keys, nil
}

// IdentityServiceTokens returns a TokenSource that obtains service tokens for service from
// identity's IssueServiceToken, authenticating with the service's configured secret, and
// reuses each token until two thirds of its lifetime have passed. Concurrent callers share one
// request.
func IdentityServiceTokens(conn grpc.ClientConnInterface, service, secret string) TokenSource {
	return &serviceTokens{
		client:  identityv1.NewIdentityServiceClient(conn),
		service: service,
		secret:  secret,
		now:     time.Now,
	}
}

type serviceTokens struct {
	client  identityv1.IdentityServiceClient
	service string
	secret  string
	now     func() time.Time

	mu      sync.Mutex // held during a fetch: the simplest single flight
	token   string
	renewAt time.Time
}

func (s *serviceTokens) Token(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.token != "" && now.Before(s.renewAt) {
		return s.token, nil
	}
	fctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	resp, err := s.client.IssueServiceToken(fctx, &identityv1.IssueServiceTokenRequest{
		Service: s.service, Secret: s.secret,
	})
	if err != nil {
		return "", fmt.Errorf("auth: identity IssueServiceToken for %s: %w", s.service, err)
	}
	if resp.GetAccessToken() == "" || resp.GetExpiresAt() == nil {
		return "", errors.New("auth: identity IssueServiceToken returned no token")
	}
	lifetime := resp.GetExpiresAt().AsTime().Sub(now)
	s.token = resp.GetAccessToken()
	s.renewAt = now.Add(lifetime * 2 / 3)
	return s.token, nil
}
