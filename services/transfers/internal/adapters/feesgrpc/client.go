// Package feesgrpc is the app's Fees over the fees service's gRPC API, quoting with the
// caller's forwarded access token (a quote is for the token's subject: the waiver is theirs).
package feesgrpc

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// Client implements app.Fees.
type Client struct{ c feesv1.FeesServiceClient }

// New returns the client over conn.
func New(conn grpc.ClientConnInterface) *Client { return &Client{c: feesv1.NewFeesServiceClient(conn)} }

var _ app.Fees = (*Client)(nil)

// ErrNoUserToken: a quote asked for without the user's token in the context.
var ErrNoUserToken = errors.New("feesgrpc: no user access token to forward")

// Quote implements app.Fees.
func (c *Client) Quote(ctx context.Context, bank domain.Bank, amount domain.Money) (domain.Quote, error) {
	token, ok := auth.TokenFromContext(ctx)
	if !ok {
		return domain.Quote{}, ErrNoUserToken
	}
	res, err := c.c.Quote(auth.WithBearer(ctx, token), &feesv1.QuoteRequest{Bank: banks[bank], AmountCents: amount.Cents()})
	if err != nil {
		switch status.Code(err) {
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
			return domain.Quote{}, fmt.Errorf("%w: fees quote: %w", app.ErrUnavailable, err)
		}
		return domain.Quote{}, fmt.Errorf("fees quote: %w", err)
	}
	q := res.GetQuote()
	if q.GetBankFeeCents() < 0 || q.GetPlatformFeeCents() < 0 {
		return domain.Quote{}, fmt.Errorf("fees quote: negative fee in %v", q)
	}
	return domain.Quote{
		BankFee:     domain.Cents(q.GetBankFeeCents()),
		PlatformFee: domain.Cents(q.GetPlatformFeeCents()),
		Waived:      q.GetWaived(),
		Fallback:    q.GetFallback(),
	}, nil
}
