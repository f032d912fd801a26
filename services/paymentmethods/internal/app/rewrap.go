package app

import (
	"context"
)

// RewrapKeys re-wraps every vault record still under a retired key-encryption key with the
// current one, so a retired key can be removed from configuration afterwards.
func (s *Service) RewrapKeys(ctx context.Context) (int, error) {
	return s.repo.RewrapAll(ctx, s.keys.CurrentID(), func(token string, sealed Sealed) (Sealed, error) {
		out, _, err := s.keys.Rewrap(token, sealed)
		return out, err
	})
}
