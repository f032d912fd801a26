package paymentmethodsgrpc_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"

	"github.com/google/uuid"
	"google.golang.org/grpc"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/transfers/internal/adapters/paymentmethodsgrpc"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/testkit"
)

func setup(t *testing.T, secret string) (*testkit.Peers, auth.Signer, *paymentmethodsgrpc.Client) {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer := auth.Signer{KeyID: "k", Key: key}
	peers := testkit.StartPeers(t, signer)
	identity, err := grpcserver.Dial(peers.IdentityAddr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = identity.Close() })
	tokens := auth.IdentityServiceTokens(identity, "transfers", secret)
	conn, err := grpcserver.Dial(peers.PaymentMethodsAddr, grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return peers, signer, paymentmethodsgrpc.New(conn)
}

func TestGetPaymentMethodForwardsTheUsersToken(t *testing.T) {
	t.Parallel()
	peers, signer, client := setup(t, testkit.ServiceSecret)
	user, pm := uuid.NewString(), uuid.NewString()
	peers.Payments.AddCard(user, pm, "Everyday Visa", "4242", "tok_1")
	ctx := testkit.ServerContext(t, signer, user)

	got, err := client.GetPaymentMethod(ctx, user, pm)
	if err != nil {
		t.Fatal(err)
	}
	if got != (app.PaymentMethod{ID: pm, UserID: user, Name: "Everyday Visa", LastFour: "4242", Card: true, Token: "tok_1"}) {
		t.Fatalf("payment method = %+v", got)
	}
	if seen := peers.Seen(); len(seen) != 1 || seen[0].Kind != auth.KindUser || seen[0].Subject != user {
		t.Fatalf("paymentmethods saw %+v, want the user's token", seen)
	}
	// Another user's method, as that user's caller, is not found.
	stranger := uuid.NewString()
	if _, err := client.GetPaymentMethod(testkit.ServerContext(t, signer, stranger), stranger, pm); !errors.Is(err, app.ErrPaymentMethodNotFound) {
		t.Fatalf("another user's method: %v", err)
	}
	// Without a user's token there is nothing to forward.
	if _, err := client.GetPaymentMethod(context.Background(), user, pm); !errors.Is(err, paymentmethodsgrpc.ErrNoUserToken) {
		t.Fatalf("no token: %v", err)
	}
}

func TestChargeAndRefundUseTheServiceToken(t *testing.T) {
	t.Parallel()
	peers, signer, client := setup(t, testkit.ServiceSecret)
	user := uuid.NewString()
	// Even from a handler's context carrying a user's token, the charge goes as the service.
	ctx := testkit.ServerContext(t, signer, user)
	ctx = auth.WithBearer(ctx, "a-user-token")

	res, err := client.Charge(ctx, app.ChargeRequest{UserID: user, Token: testkit.TokenApprove, Amount: domain.Cents(51150), IdempotencyKey: "t1"})
	if err != nil || !res.Approved || res.ChargeID == "" {
		t.Fatalf("charge = %+v, %v", res, err)
	}
	again, err := client.Charge(ctx, app.ChargeRequest{UserID: user, Token: testkit.TokenApprove, Amount: domain.Cents(51150), IdempotencyKey: "t1"})
	if err != nil || again.ChargeID != res.ChargeID || peers.Payments.ApprovedCharges() != 1 {
		t.Fatalf("replayed charge = %+v, %v", again, err)
	}
	declined, err := client.Charge(context.Background(), app.ChargeRequest{UserID: user, Token: testkit.TokenInsufficient, Amount: domain.Cents(100), IdempotencyKey: "t2"})
	if err != nil || declined.Approved || declined.DeclineCode != "insufficient_funds" || declined.DeclineMessage != "Your card has insufficient funds." {
		t.Fatalf("declined = %+v, %v", declined, err)
	}
	if _, err := client.Charge(context.Background(), app.ChargeRequest{Token: testkit.TokenRejected, Amount: domain.Cents(100), IdempotencyKey: "t3"}); !errors.Is(err, app.ErrChargeRejected) {
		t.Fatalf("rejected: %v", err)
	}
	peers.Payments.FailNextCharges(1)
	if _, err := client.Charge(context.Background(), app.ChargeRequest{Token: testkit.TokenApprove, Amount: domain.Cents(100), IdempotencyKey: "t4"}); !errors.Is(err, app.ErrUnavailable) {
		t.Fatalf("processor down: %v", err)
	}
	refund, err := client.Refund(context.Background(), app.RefundRequest{ChargeID: res.ChargeID, Amount: domain.Cents(51150), IdempotencyKey: "refund-t1"})
	if err != nil || refund == "" {
		t.Fatalf("refund = %q, %v", refund, err)
	}
	for _, s := range peers.Seen() {
		if s.Method != paymentmethodsv1.PaymentMethodsService_GetPaymentMethod_FullMethodName && (s.Kind != auth.KindService || s.Subject != "transfers") {
			t.Fatalf("%s called as %s %q, want the transfers service", s.Method, s.Kind, s.Subject)
		}
	}
}

func TestChargeWithAWrongSecretIsRetriable(t *testing.T) {
	t.Parallel()
	_, _, client := setup(t, "not-the-secret")
	_, err := client.Charge(context.Background(), app.ChargeRequest{Token: testkit.TokenApprove, Amount: domain.Cents(100), IdempotencyKey: "t"})
	if err == nil || errors.Is(err, app.ErrChargeRejected) {
		t.Fatalf("charge without a service token: %v, want an error the worker retries", err)
	}
}
