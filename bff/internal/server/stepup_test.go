package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"

	"github.com/thumela/thumela/bff/internal/handlers"
	"github.com/thumela/thumela/bff/internal/session"
	"github.com/thumela/thumela/bff/internal/upstream"
)

// steppingIdentity is fakeIdentity whose Refresh issues a token carrying the step-up once the
// session stepped up (elsewhere: another BFF replica did FinishStepUp).
type steppingIdentity struct {
	*fakeIdentity
	mu        sync.Mutex
	steppedUp bool
}

func (f *steppingIdentity) Refresh(ctx context.Context, req *identityv1.RefreshRequest) (*identityv1.RefreshResponse, error) {
	res, err := f.fakeIdentity.Refresh(ctx, req)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil && f.steppedUp {
		res.AccessToken += "+sua"
	}
	return res, err
}

// stepUpTransfers refuses every create whose token carries no step-up, as transfers does for a
// transfer that needs one.
type stepUpTransfers struct {
	transfersv1.UnimplementedTransfersServiceServer
	mu     sync.Mutex
	tokens []string
}

func (f *stepUpTransfers) CreateTransfer(ctx context.Context, req *transfersv1.CreateTransferRequest) (*transfersv1.CreateTransferResponse, error) {
	tok := authorization(ctx)
	f.mu.Lock()
	f.tokens = append(f.tokens, tok)
	f.mu.Unlock()
	if len(tok) < 4 || tok[len(tok)-4:] != "+sua" {
		st, _ := status.New(codes.FailedPrecondition, "Please confirm it's you before sending this money.").WithDetails(
			&errdetails.ErrorInfo{Reason: "STEP_UP_REQUIRED", Domain: "transfers.thumela.co.za"})
		return nil, st.Err()
	}
	return &transfersv1.CreateTransferResponse{Transfer: &transfersv1.Transfer{Id: "tr-1", AmountCents: req.GetAmountCents()}}, nil
}

// CreateTransfer passes transfers' STEP_UP_REQUIRED to the browser unchanged; and when the
// session stepped up through another replica after this one cached its grant, it fetches a
// fresh grant (with the step-up) and the create goes through.
func TestCreateTransferStepUpThroughTheBFF(t *testing.T) {
	t.Parallel()
	identity := &steppingIdentity{fakeIdentity: &fakeIdentity{sessions: map[string]bool{}}}
	transfers := &stepUpTransfers{}
	conn := serveUpstream(t, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, identity)
		profilesv1.RegisterProfilesServiceServer(s, fakeProfiles{})
		transfersv1.RegisterTransfersServiceServer(s, transfers)
	})
	idClient := identityv1.NewIdentityServiceClient(conn)
	srv := serveBFF(t, &handlers.Deps{
		Logger:    slog.New(slog.NewTextHandler(io.Discard, nil)),
		Identity:  idClient,
		Profiles:  profilesv1.NewProfilesServiceClient(conn),
		Transfers: transfersv1.NewTransfersServiceClient(conn),
		Tokens:    session.NewTokens(upstream.SessionRefresher{Identity: idClient}),
		Cookies:   session.Cookies{Secure: true},
	})
	auth, hc := client(t, srv)
	ctx := context.Background()
	if _, err := auth.SignIn(ctx, &bffv1.SignInRequest{Email: "thandi@example.co.za", Password: "right-password"}); err != nil {
		t.Fatal(err)
	}
	api := bffv1connect.NewTransfersServiceClient(hc, srv.URL)
	req := &bffv1.CreateTransferRequest{IdempotencyKey: "k-1", RecipientName: "Sipho", RecipientPhone: "083 765 4321",
		Bank: bffv1.Bank_BANK_FNB, AmountCents: 150_000, PaymentMethodId: "pm-1"}

	_, err := api.CreateTransfer(ctx, req)
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeFailedPrecondition {
		t.Fatalf("without a step-up: %v, want FailedPrecondition", err)
	}
	found := false
	for _, d := range ce.Details() {
		if m, err := d.Value(); err == nil {
			if info, ok := m.(*errdetails.ErrorInfo); ok && info.GetReason() == "STEP_UP_REQUIRED" && info.GetDomain() == "transfers.thumela.co.za" {
				found = true
			}
		}
	}
	if !found {
		t.Fatalf("the browser got no STEP_UP_REQUIRED ErrorInfo: %v", ce.Details())
	}

	identity.mu.Lock()
	identity.steppedUp = true // FinishStepUp at another replica
	identity.mu.Unlock()
	res, err := api.CreateTransfer(ctx, req)
	if err != nil || res.GetTransfer().GetId() != "tr-1" {
		t.Fatalf("after a step-up elsewhere: %v %v", res, err)
	}
	transfers.mu.Lock()
	defer transfers.mu.Unlock()
	// Refused (a fresh grant is no different: not sent again), then refused with the cached
	// grant and sent again with identity's new one.
	if n := len(transfers.tokens); n != 3 || transfers.tokens[0] != transfers.tokens[1] || transfers.tokens[2] != transfers.tokens[1]+"+sua" {
		t.Fatalf("transfers saw tokens %q", transfers.tokens)
	}
}
