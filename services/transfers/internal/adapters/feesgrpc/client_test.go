package feesgrpc_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/google/uuid"

	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/transfers/internal/adapters/feesgrpc"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

func TestQuoteForwardsTheUsersToken(t *testing.T) {
	t.Parallel()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "k", Key: key}
	peers := testkit.StartPeers(t, signer)
	conn, err := grpcserver.Dial(peers.FeesAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	client := feesgrpc.New(conn)
	user := uuid.NewString()
	ctx := testkit.ServerContext(t, signer, user)

	peers.Fees.SetWaived(true)
	q, err := client.Quote(ctx, domain.Nedbank, domain.Cents(50000))
	if err != nil {
		t.Fatal(err)
	}
	if q != (domain.Quote{BankFee: domain.Cents(850), PlatformFee: domain.Cents(150), Waived: true}) {
		t.Fatalf("quote = %+v", q)
	}
	if seen := peers.Seen(); len(seen) != 1 || seen[0].Kind != auth.KindUser || seen[0].Subject != user {
		t.Fatalf("fees saw %+v", seen)
	}
	if _, err := client.Quote(context.Background(), domain.Nedbank, domain.Cents(50000)); !errors.Is(err, feesgrpc.ErrNoUserToken) {
		t.Fatalf("no token: %v", err)
	}
	peers.Fees.SetError(errors.New("down"))
	if _, err := client.Quote(ctx, domain.Nedbank, domain.Cents(50000)); !errors.Is(err, app.ErrUnavailable) {
		t.Fatalf("fees down: %v", err)
	}
}
