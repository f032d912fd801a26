package testkit

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/grpcserver/grpctest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
)

// ServiceSecret is the transfers service's secret that the fake identity accepts.
const ServiceSecret = "transfers-secret-0123456789abcdef"

// Seen is one call a fake peer admitted: the method and who called (from the verified token).
type Seen struct {
	Method  string
	Kind    auth.Kind
	Subject string
}

// Peers are fake identity, paymentmethods and fees gRPC servers on loopback. Identity issues
// service tokens and publishes Signer's key; paymentmethods and fees check tokens with the
// production interceptor and the real services' policies (Charge and Refund: only the
// transfers service), then answer from Payments and Fees.
type Peers struct {
	Signer             auth.Signer
	Payments           *FakePayments
	Fees               *FakeFees
	IdentityAddr       string
	PaymentMethodsAddr string
	FeesAddr           string

	mu   sync.Mutex
	seen []Seen
}

// StartPeers starts the three servers until the test ends.
func StartPeers(t testing.TB, signer auth.Signer) *Peers {
	t.Helper()
	p := &Peers{Signer: signer, Payments: NewFakePayments(), Fees: NewFakeFees()}
	verifier := auth.NewVerifier(auth.StaticKeys{signer.PublicKey()}, service.TokenIssuer)

	p.IdentityAddr = serve(t, nil, func(s *grpc.Server) {
		identityv1.RegisterIdentityServiceServer(s, &fakeIdentity{signer: signer})
	})
	pmPolicy := auth.Policy{
		paymentmethodsv1.PaymentMethodsService_GetPaymentMethod_FullMethodName: auth.User,
		paymentmethodsv1.PaymentMethodsService_Charge_FullMethodName:           auth.Services("transfers"),
		paymentmethodsv1.PaymentMethodsService_Refund_FullMethodName:           auth.Services("transfers"),
	}
	p.PaymentMethodsAddr = serve(t, []grpc.UnaryServerInterceptor{auth.UnaryServerInterceptor(verifier, pmPolicy), p.record}, func(s *grpc.Server) {
		paymentmethodsv1.RegisterPaymentMethodsServiceServer(s, &fakePaymentMethods{f: p.Payments})
	})
	feesPolicy := auth.Policy{feesv1.FeesService_Quote_FullMethodName: auth.User}
	p.FeesAddr = serve(t, []grpc.UnaryServerInterceptor{auth.UnaryServerInterceptor(verifier, feesPolicy), p.record}, func(s *grpc.Server) {
		feesv1.RegisterFeesServiceServer(s, &fakeFeesServer{f: p.Fees})
	})
	return p
}

// Seen returns the calls admitted so far.
func (p *Peers) Seen() []Seen {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Seen(nil), p.seen...)
}

func (p *Peers) record(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	c, _ := auth.FromContext(ctx)
	p.mu.Lock()
	p.seen = append(p.seen, Seen{Method: info.FullMethod, Kind: c.Kind, Subject: c.Subject})
	p.mu.Unlock()
	return handler(ctx, req)
}

func serve(t testing.TB, interceptors []grpc.UnaryServerInterceptor, register func(*grpc.Server)) string {
	t.Helper()
	srv := grpcserver.New(Discard, grpcserver.WithUnaryInterceptors(interceptors...))
	register(srv.GRPC())
	return grpctest.Listen(t, srv)
}

type fakeIdentity struct {
	identityv1.UnimplementedIdentityServiceServer
	signer auth.Signer
}

func (f *fakeIdentity) GetPublicKeys(context.Context, *identityv1.GetPublicKeysRequest) (*identityv1.GetPublicKeysResponse, error) {
	pk := f.signer.PublicKey()
	return &identityv1.GetPublicKeysResponse{Keys: []*identityv1.PublicKey{{KeyId: pk.ID, Ed25519PublicKey: pk.Key}}}, nil
}

func (f *fakeIdentity) IssueServiceToken(_ context.Context, req *identityv1.IssueServiceTokenRequest) (*identityv1.IssueServiceTokenResponse, error) {
	if req.GetService() != "transfers" || req.GetSecret() != ServiceSecret {
		return nil, status.Error(codes.Unauthenticated, "unknown service or wrong secret")
	}
	exp := time.Now().Add(5 * time.Minute)
	token, err := f.signer.Sign(auth.Claims{Subject: "transfers", Kind: auth.KindService, Issuer: service.TokenIssuer, ExpiresAt: exp})
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &identityv1.IssueServiceTokenResponse{AccessToken: token, ExpiresAt: timestamppb.New(exp)}, nil
}

type fakePaymentMethods struct {
	paymentmethodsv1.UnimplementedPaymentMethodsServiceServer
	f *FakePayments
}

func (s *fakePaymentMethods) GetPaymentMethod(ctx context.Context, req *paymentmethodsv1.GetPaymentMethodRequest) (*paymentmethodsv1.GetPaymentMethodResponse, error) {
	c, _ := auth.FromContext(ctx)
	pm, err := s.f.GetPaymentMethod(ctx, c.Subject, req.GetPaymentMethodId())
	if err != nil {
		return nil, status.Error(codes.NotFound, "payment method not found")
	}
	typ := paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_BANK_ACCOUNT
	if pm.Card {
		typ = paymentmethodsv1.PaymentMethodType_PAYMENT_METHOD_TYPE_CARD
	}
	return &paymentmethodsv1.GetPaymentMethodResponse{PaymentMethod: &paymentmethodsv1.PaymentMethod{
		Id: pm.ID, UserId: pm.UserID, Name: pm.Name, Type: typ, Brand: paymentmethodsv1.CardBrand_CARD_BRAND_VISA,
		LastFour: pm.LastFour, ExpiryMonth: 12, ExpiryYear: 2030, Token: pm.Token,
	}}, nil
}

func (s *fakePaymentMethods) Charge(ctx context.Context, req *paymentmethodsv1.ChargeRequest) (*paymentmethodsv1.ChargeResponse, error) {
	res, err := s.f.Charge(ctx, app.ChargeRequest{
		UserID: req.GetUserId(), Token: req.GetToken(), Amount: domain.Cents(req.GetAmountCents()),
		IdempotencyKey: req.GetIdempotencyKey(), Description: req.GetDescription(),
	})
	switch {
	case errors.Is(err, app.ErrChargeRejected):
		return nil, status.Error(codes.NotFound, "payment method not found")
	case err != nil:
		return nil, status.Error(codes.Unavailable, "processor unavailable")
	case res.Approved:
		return &paymentmethodsv1.ChargeResponse{ChargeId: res.ChargeID, Status: paymentmethodsv1.ChargeStatus_CHARGE_STATUS_APPROVED}, nil
	default:
		return &paymentmethodsv1.ChargeResponse{ChargeId: res.ChargeID, Status: paymentmethodsv1.ChargeStatus_CHARGE_STATUS_DECLINED,
			DeclineCode: res.DeclineCode, DeclineMessage: res.DeclineMessage}, nil
	}
}

func (s *fakePaymentMethods) Refund(ctx context.Context, req *paymentmethodsv1.RefundRequest) (*paymentmethodsv1.RefundResponse, error) {
	id, err := s.f.Refund(ctx, app.RefundRequest{
		ChargeID: req.GetChargeId(), Amount: domain.Cents(req.GetAmountCents()), IdempotencyKey: req.GetIdempotencyKey(), Reason: req.GetReason(),
	})
	if err != nil {
		return nil, status.Error(codes.Unavailable, "processor unavailable")
	}
	return &paymentmethodsv1.RefundResponse{RefundId: id}, nil
}

type fakeFeesServer struct {
	feesv1.UnimplementedFeesServiceServer
	f *FakeFees
}

var protoBanks = map[feesv1.Bank]domain.Bank{
	feesv1.Bank_BANK_STANDARD_BANK: domain.StandardBank, feesv1.Bank_BANK_ABSA: domain.ABSA, feesv1.Bank_BANK_FNB: domain.FNB,
	feesv1.Bank_BANK_NEDBANK: domain.Nedbank, feesv1.Bank_BANK_CAPITEC: domain.Capitec,
}

func (s *fakeFeesServer) Quote(ctx context.Context, req *feesv1.QuoteRequest) (*feesv1.QuoteResponse, error) {
	q, err := s.f.Quote(ctx, protoBanks[req.GetBank()], domain.Cents(req.GetAmountCents()))
	if err != nil {
		return nil, status.Error(codes.Unavailable, "fees unavailable")
	}
	fee := q.BankFee.Add(q.PlatformFee).Cents()
	out := &feesv1.Quote{
		AmountCents: req.GetAmountCents(), BankFeeCents: q.BankFee.Cents(), PlatformFeeCents: q.PlatformFee.Cents(),
		TotalFeeCents: fee, TotalAmountCents: req.GetAmountCents() + fee, Waived: q.Waived,
	}
	if q.Waived {
		out.TotalFeeCents, out.TotalAmountCents, out.WaivedFeeCents = 0, req.GetAmountCents(), fee
	}
	return &feesv1.QuoteResponse{Quote: out}, nil
}

// ServerContext returns the context a gRPC handler of this service gets for a call carrying
// userID's token signed by signer: the verified claims and the raw token (auth.TokenFromContext),
// as the production interceptor leaves them.
func ServerContext(t testing.TB, signer auth.Signer, userID string) context.Context {
	t.Helper()
	token, err := signer.Sign(auth.Claims{Subject: userID, Kind: auth.KindUser, Issuer: service.TokenIssuer, ExpiresAt: time.Now().Add(5 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	verifier := auth.NewVerifier(auth.StaticKeys{signer.PublicKey()}, service.TokenIssuer)
	const method = "/thumela.test.v1.Test/Call"
	intercept := auth.UnaryServerInterceptor(verifier, auth.Policy{method: auth.User})
	in := metadata.NewIncomingContext(t.Context(), metadata.Pairs("authorization", "Bearer "+token))
	var got context.Context
	if _, err := intercept(in, nil, &grpc.UnaryServerInfo{FullMethod: method}, func(ctx context.Context, _ any) (any, error) {
		got = ctx
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}
