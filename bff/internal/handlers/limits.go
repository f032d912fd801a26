package handlers

import (
	"context"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/rpcerr"
)

// GetLimits forwards the sender's usage against each limit and the money waiting in their
// uncollected vouchers (the wizard's meter, the dashboard's card).
func (t *Transfers) GetLimits(ctx context.Context, _ *bffv1.GetLimitsRequest) (*bffv1.GetLimitsResponse, error) {
	res, err := forward(ctx, t.Deps, t.Deps.Transfers.GetLimits, &transfersv1.GetLimitsRequest{})
	if err != nil {
		return nil, err
	}
	return &bffv1.GetLimitsResponse{
		Limits:              limitsToBFF(res.GetLimits()),
		UncollectedCents:    res.GetUncollectedCents(),
		UncollectedVouchers: res.GetUncollectedVouchers(),
	}, nil
}

// LimitPolicyTTL is how long the BFF answers GetLimitPolicy from memory. The limits change
// only with the transfers service's configuration (a redeploy), and every public page asks.
const LimitPolicyTTL = time.Minute

// policyCache holds the last GetLimitPolicy answer of transfers.
type policyCache struct {
	mu      sync.Mutex
	res     *bffv1.GetLimitPolicyResponse
	expires time.Time
}

// GetLimitPolicy answers the configured limits with no session: the Help Center, FAQ, terms
// and compliance pages state the figures transfers enforces. Transfers' GetLimitPolicy is
// public, so the call carries no user token.
func (t *Transfers) GetLimitPolicy(ctx context.Context, _ *bffv1.GetLimitPolicyRequest) (*bffv1.GetLimitPolicyResponse, error) {
	c := &t.limitPolicy
	c.mu.Lock()
	defer c.mu.Unlock() // one call to transfers when the entry expires, not one per waiting visitor
	now := time.Now()
	if c.res != nil && now.Before(c.expires) {
		return proto.CloneOf(c.res), nil
	}
	res, err := t.Deps.Transfers.GetLimitPolicy(ctx, &transfersv1.GetLimitPolicyRequest{})
	if err != nil {
		return nil, rpcerr.FromService(ctx, t.Logger, err)
	}
	out := &bffv1.GetLimitPolicyResponse{AmountMultipleCents: res.GetAmountMultipleCents()}
	for _, l := range res.GetLimits() {
		out.Limits = append(out.Limits, &bffv1.LimitPolicy{Kind: limitKinds.toBFF(l.GetKind()), LimitCents: l.GetLimitCents()})
	}
	c.res, c.expires = out, now.Add(LimitPolicyTTL)
	return proto.CloneOf(out), nil
}
