package grpcport

import (
	"context"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

// GetCredit returns the caller's credit, referral code and referral figures: only the
// caller's, whom the access token alone names.
func (s *Server) GetCredit(ctx context.Context, _ *transfersv1.GetCreditRequest) (*transfersv1.GetCreditResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	figures, err := s.app.GetCredit(ctx, c)
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return credit(figures), nil
}
