// Package grpcport is the transfers service's gRPC API, its incoming edge for calls: the
// server, the access policy, the proto ↔ domain mapping (mapping.go), and the one place where
// errors become status codes.
package grpcport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
	"github.com/thumela/thumela/services/platform/intconv"
	"github.com/thumela/thumela/services/transfers/internal/app"
	"github.com/thumela/thumela/services/transfers/internal/domain"
	"github.com/thumela/thumela/services/transfers/internal/events"
)

// ATMGatewayService is the service-token subject of the ATM network's gateway, the only caller
// of CollectVoucher. Identity issues it tokens when IDENTITY_SERVICE_SECRETS lists it.
const ATMGatewayService = "atm-gateway"

// Policy: every method but CollectVoucher and ReverseCollection acts on the calling user's own
// transfers; those two are for the ATM gateway alone (no user may collect or reverse, not even
// the sender). GetLimitPolicy is public: the configured limits, nobody's data, asked by the
// BFF for its public pages with no user token.
var Policy = auth.Policy{
	transfersv1.TransfersService_CreateTransfer_FullMethodName:       auth.User,
	transfersv1.TransfersService_GetTransfer_FullMethodName:          auth.User,
	transfersv1.TransfersService_ListTransfers_FullMethodName:        auth.User,
	transfersv1.TransfersService_CancelTransfer_FullMethodName:       auth.User,
	transfersv1.TransfersService_GetLimits_FullMethodName:            auth.User,
	transfersv1.TransfersService_GetLimitPolicy_FullMethodName:       auth.Public,
	transfersv1.TransfersService_QuoteFee_FullMethodName:             auth.User,
	transfersv1.TransfersService_ResendVoucher_FullMethodName:        auth.User,
	transfersv1.TransfersService_ChangeRecipientPhone_FullMethodName: auth.User,
	transfersv1.TransfersService_ListRecipients_FullMethodName:       auth.User,
	transfersv1.TransfersService_UpdateRecipient_FullMethodName:      auth.User,
	transfersv1.TransfersService_DeleteRecipient_FullMethodName:      auth.User,
	transfersv1.TransfersService_FreezeVouchers_FullMethodName:       auth.User,
	transfersv1.TransfersService_CreateSchedule_FullMethodName:       auth.User,
	transfersv1.TransfersService_ListSchedules_FullMethodName:        auth.User,
	transfersv1.TransfersService_PauseSchedule_FullMethodName:        auth.User,
	transfersv1.TransfersService_ResumeSchedule_FullMethodName:       auth.User,
	transfersv1.TransfersService_DeleteSchedule_FullMethodName:       auth.User,
	transfersv1.TransfersService_GetCredit_FullMethodName:            auth.User,
	transfersv1.TransfersService_CollectVoucher_FullMethodName:       auth.Services(ATMGatewayService),
	transfersv1.TransfersService_ReverseCollection_FullMethodName:    auth.Services(ATMGatewayService),
	transfersv1.TransfersService_Reconcile_FullMethodName:            auth.Services(OnCallService),
}

// OnCallService is the service name of the on-call operators' tools (make reconcile), the only
// caller of Reconcile.
const OnCallService = "oncall"

// Server implements transfersv1.TransfersServiceServer.
type Server struct {
	transfersv1.UnimplementedTransfersServiceServer
	app    *app.Service
	logger *slog.Logger
}

// NewServer returns the gRPC API over svc.
func NewServer(svc *app.Service, logger *slog.Logger) *Server {
	return &Server{app: svc, logger: logger}
}

// caller is the user the call is made for (Unauthenticated without a user token).
func caller(ctx context.Context) (app.Caller, error) {
	c, err := auth.RequireUser(ctx)
	if err != nil {
		return app.Caller{}, err
	}
	return app.Caller{UserID: c.Subject, GivenName: c.GivenName, FamilyName: c.FamilyName, Email: c.Email,
		SteppedUpAt: c.SteppedUpAt}, nil
}

// CreateTransfer accepts a transfer, pending.
func (s *Server) CreateTransfer(ctx context.Context, req *transfersv1.CreateTransferRequest) (*transfersv1.CreateTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.CreateTransfer(ctx, c, domain.RequestInput{
		IdempotencyKey:  req.GetIdempotencyKey(),
		RecipientName:   req.GetRecipientName(),
		RecipientPhone:  req.GetRecipientPhone(),
		Bank:            bankFromProto(req.GetBank()),
		AmountCents:     req.GetAmountCents(),
		PaymentMethodID: req.GetPaymentMethodId(),
		Location: domain.Location{
			Name: req.GetWithdrawalLocation().GetName(),
			Type: req.GetWithdrawalLocation().GetType(),
		},
		SenderPIN:               req.GetSenderPin(),
		DoNotSaveRecipient:      req.GetDoNotSaveRecipient(),
		RecipientKnownConfirmed: req.GetRecipientKnownConfirmed(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CreateTransferResponse{Transfer: events.Transfer(t)}, nil
}

// GetTransfer returns one of the caller's transfers.
func (s *Server) GetTransfer(ctx context.Context, req *transfersv1.GetTransferRequest) (*transfersv1.GetTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.GetTransfer(ctx, c, req.GetTransferId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.GetTransferResponse{Transfer: events.Transfer(t)}, nil
}

// ListTransfers pages through the caller's transfers.
func (s *Server) ListTransfers(ctx context.Context, req *transfersv1.ListTransfersRequest) (*transfersv1.ListTransfersResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	st := statusFromProto(req.GetStatus())
	if st == "" && req.GetStatus() != transfersv1.TransferStatus_TRANSFER_STATUS_UNSPECIFIED {
		return nil, grpcserver.BadRequestOrdered("Unknown status.", grpcserver.FieldViolation{Field: "status", Description: "Unknown status."})
	}
	w := app.Window{}
	if req.GetCreatedFrom() != nil {
		w.From = req.GetCreatedFrom().AsTime()
	}
	if req.GetCreatedBefore() != nil {
		w.Before = req.GetCreatedBefore().AsTime()
	}
	page, err := s.app.ListTransfers(ctx, c, req.GetQuery(), st, w, int(req.GetPage()), int(req.GetPageSize()))
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.ListTransfersResponse{TotalCount: intconv.Int32(page.Total)}
	for _, t := range page.Transfers {
		res.Transfers = append(res.Transfers, events.Transfer(t))
	}
	return res, nil
}

// CancelTransfer cancels the caller's voucher awaiting collection; the refund follows.
func (s *Server) CancelTransfer(ctx context.Context, req *transfersv1.CancelTransferRequest) (*transfersv1.CancelTransferResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.CancelTransfer(ctx, c, req.GetTransferId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CancelTransferResponse{Transfer: events.Transfer(t)}, nil
}

// ResendVoucher re-issues the caller's voucher and sends its SMS again.
func (s *Server) ResendVoucher(ctx context.Context, req *transfersv1.ResendVoucherRequest) (*transfersv1.ResendVoucherResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.ResendVoucher(ctx, c, req.GetTransferId())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.ResendVoucherResponse{Transfer: events.Transfer(t)}, nil
}

// ChangeRecipientPhone re-issues the caller's voucher to another phone number.
func (s *Server) ChangeRecipientPhone(ctx context.Context, req *transfersv1.ChangeRecipientPhoneRequest) (*transfersv1.ChangeRecipientPhoneResponse, error) {
	c, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.app.ChangeRecipientPhone(ctx, c, req.GetTransferId(), req.GetRecipientPhone())
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.ChangeRecipientPhoneResponse{Transfer: events.Transfer(t)}, nil
}

// gateway refuses anyone but the ATM gateway. The policy admits only its service token; checked
// again here so that the ATM handlers never run for anyone else, whatever the policy becomes.
func gateway(ctx context.Context) error {
	if c, ok := auth.FromContext(ctx); !ok || !c.IsService(ATMGatewayService) {
		return status.Error(codes.PermissionDenied, "caller not allowed")
	}
	return nil
}

// CollectVoucher is a withdrawal at an ATM, for the ATM gateway.
func (s *Server) CollectVoucher(ctx context.Context, req *transfersv1.CollectVoucherRequest) (*transfersv1.CollectVoucherResponse, error) {
	if err := gateway(ctx); err != nil {
		return nil, err
	}
	c, err := s.app.CollectVoucher(ctx, domain.CollectInput{
		VoucherNumber:  req.GetVoucherNumber(),
		PIN:            req.GetPin(),
		RecipientPhone: req.GetRecipientPhone(),
		Bank:           bankFromProto(req.GetBank()),
		ATMID:          req.GetAtmId(),
		AmountCents:    req.GetAmountCents(),
		STAN:           req.GetSystemTraceAuditNumber(),
		RRN:            req.GetRetrievalReference(),
		ATMLocation:    req.GetAtmLocation(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	return &transfersv1.CollectVoucherResponse{
		TransferId:  c.TransferID.String(),
		AmountCents: c.Amount.Cents(),
		CollectedAt: timestamppb.New(c.CollectedAt),
	}, nil
}

// ReverseCollection undoes a collection the ATM could not complete, for the ATM gateway.
func (s *Server) ReverseCollection(ctx context.Context, req *transfersv1.ReverseCollectionRequest) (*transfersv1.ReverseCollectionResponse, error) {
	if err := gateway(ctx); err != nil {
		return nil, err
	}
	id, reversed, err := s.app.ReverseCollection(ctx, domain.ReversalInput{
		Bank: bankFromProto(req.GetBank()), RRN: req.GetRetrievalReference(), STAN: req.GetSystemTraceAuditNumber(),
		ATMID: req.GetAtmId(), AmountCents: req.GetAmountCents(), Voucher: req.GetVoucherNumber(),
	})
	if err != nil {
		return nil, s.toStatus(ctx, err)
	}
	res := &transfersv1.ReverseCollectionResponse{Reversed: reversed}
	if id != uuid.Nil {
		res.TransferId = id.String()
	}
	return res, nil
}

// Not-found answers, as the sender reads them. Another user's transfer, card or recipient
// answers the same: its existence is not given away.
const (
	MsgTransferNotFound      = "Transfer not found."
	MsgPaymentMethodNotFound = domain.MsgPaymentMethodNotFound
	MsgRecipientNotFound     = "Recipient not found."
)

// Collection refusals, as the ATM shows them.
const (
	msgVoucherCredentials = "The voucher number, PIN or phone number is incorrect."
	msgVoucherCollected   = "This voucher has already been collected."
	msgVoucherCancelled   = "This voucher was cancelled by the sender and can no longer be collected."
	msgVoucherExpired     = "This voucher has expired and can no longer be collected."
	msgInvalidVoucher     = "This is not a voucher number: voucher numbers have 10 digits."
	msgReversed           = "This withdrawal was reversed. Please start a new withdrawal."
)

var refusalReasons = map[domain.RefusalReason]transfersv1.CollectionRefused_Reason{
	domain.RefusalWrongCredentials: transfersv1.CollectionRefused_REASON_WRONG_CREDENTIALS,
	domain.RefusalLocked:           transfersv1.CollectionRefused_REASON_LOCKED,
	domain.RefusalExpired:          transfersv1.CollectionRefused_REASON_EXPIRED,
	domain.RefusalCancelled:        transfersv1.CollectionRefused_REASON_CANCELLED,
	domain.RefusalAlreadyCollected: transfersv1.CollectionRefused_REASON_ALREADY_COLLECTED,
	domain.RefusalWrongBank:        transfersv1.CollectionRefused_REASON_WRONG_BANK,
	domain.RefusalWrongAmount:      transfersv1.CollectionRefused_REASON_WRONG_AMOUNT,
	domain.RefusalInvalidVoucher:   transfersv1.CollectionRefused_REASON_INVALID_VOUCHER,
	domain.RefusalReversed:         transfersv1.CollectionRefused_REASON_REVERSED,
}

// refusalStatus is a refused collection's status: the codes the contract has always used
// (PermissionDenied for the credentials, ResourceExhausted for a lock, FailedPrecondition for
// the voucher's state, bank or amount), the ATM's message, and the CollectionRefused detail
// from which the gateway picks its ISO 8583 response code.
func refusalStatus(r domain.Refusal) error {
	var (
		code codes.Code
		msg  string
	)
	switch r.Reason {
	case domain.RefusalWrongCredentials:
		code, msg = codes.PermissionDenied, msgVoucherCredentials
	case domain.RefusalInvalidVoucher:
		code, msg = codes.PermissionDenied, msgInvalidVoucher
	case domain.RefusalLocked:
		code, msg = codes.ResourceExhausted, fmt.Sprintf(
			"Too many incorrect attempts: this voucher is locked until %s. Please try again after that.",
			r.LockedUntil.In(domain.Johannesburg).Format("2 Jan 2006 15:04 SAST"))
	case domain.RefusalWrongBank:
		code, msg = codes.FailedPrecondition, fmt.Sprintf("This voucher can only be withdrawn at a %s ATM.", r.Bank.DisplayName())
	case domain.RefusalWrongAmount:
		code, msg = codes.FailedPrecondition, fmt.Sprintf("This voucher is paid out whole: please withdraw %s.", r.Amount)
	case domain.RefusalAlreadyCollected:
		code, msg = codes.FailedPrecondition, msgVoucherCollected
	case domain.RefusalCancelled:
		code, msg = codes.FailedPrecondition, msgVoucherCancelled
	case domain.RefusalExpired:
		code, msg = codes.FailedPrecondition, msgVoucherExpired
	default: // domain.RefusalReversed
		code, msg = codes.FailedPrecondition, msgReversed
	}
	st := status.New(code, msg)
	detail := &transfersv1.CollectionRefused{Reason: refusalReasons[r.Reason]}
	if r.Reason == domain.RefusalWrongCredentials {
		detail.AttemptsLeft = intconv.Int32(r.AttemptsLeft)
	}
	if d, err := st.WithDetails(detail); err == nil {
		st = d
	}
	return st.Err()
}

// Step-up refusal, as transfers.proto documents it: the BFF passes the ErrorInfo through and
// the wizard, seeing the reason, asks the sender to confirm it is them and sends again.
const (
	ReasonStepUpRequired = "STEP_UP_REQUIRED"
	ErrorDomain          = "transfers.thumela.co.za"
	msgStepUpRequired    = "Please confirm it's you before sending this money."
)

func stepUpStatus() error {
	st := status.New(codes.FailedPrecondition, msgStepUpRequired)
	if d, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonStepUpRequired, Domain: ErrorDomain}); err == nil {
		st = d
	}
	return st.Err()
}

func (s *Server) toStatus(ctx context.Context, err error) error {
	var (
		verr  *domain.ValidationError
		limit *domain.LimitError
	)
	if r, ok := domain.RefusalOf(err); ok {
		return refusalStatus(r)
	}
	switch {
	case errors.As(err, &verr) && len(verr.Violations) > 0:
		violations := make([]grpcserver.FieldViolation, len(verr.Violations))
		for i, v := range verr.Violations {
			violations[i] = grpcserver.FieldViolation{Field: v.Field, Description: v.Message}
		}
		return grpcserver.BadRequestOrdered(verr.Violations[0].Message, violations...)
	case errors.As(err, &limit):
		st := status.New(codes.FailedPrecondition, limit.Error())
		if d, derr := st.WithDetails(&transfersv1.LimitExceeded{
			Kind:           limitKinds[limit.Kind],
			LimitCents:     limit.Limit.Cents(),
			RemainingCents: limit.Remaining.Cents(),
		}); derr == nil {
			st = d
		}
		return st.Err()
	case errors.Is(err, domain.ErrStepUpRequired):
		return stepUpStatus()
	case errors.Is(err, domain.ErrRecipientConfirmationRequired):
		return recipientConfirmationStatus()
	case errors.Is(err, domain.ErrNotFound):
		return status.Error(codes.NotFound, MsgTransferNotFound)
	case errors.Is(err, domain.ErrReversalMismatch):
		return status.Error(codes.FailedPrecondition, "The reversal does not match the approved request it names (ATM, amount or voucher number), or came too late.")
	case errors.Is(err, domain.ErrCollectionConflict):
		return status.Error(codes.AlreadyExists, "This retrieval reference was already used for a different request.")
	case errors.Is(err, domain.ErrResendLimit):
		return status.Error(codes.FailedPrecondition, fmt.Sprintf(
			"The voucher SMS has already been resent %d times, the most it can be.", domain.MaxVoucherResends))
	case errors.Is(err, domain.ErrPhoneChangeLimit):
		return status.Error(codes.FailedPrecondition, fmt.Sprintf(
			"The recipient's phone number has already been changed %d times, the most it can be.", domain.MaxPhoneChanges))
	case errors.Is(err, domain.ErrVoucherNotAwaiting):
		return status.Error(codes.FailedPrecondition,
			"Only a voucher that is awaiting collection can be resent or sent to another number.")
	case errors.Is(err, domain.ErrIdempotencyConflict):
		return status.Error(codes.AlreadyExists, "This idempotency key was already used for a different transfer.")
	case errors.Is(err, app.ErrPaymentMethodNotFound):
		return grpcserver.BadRequestOrdered(MsgPaymentMethodNotFound,
			grpcserver.FieldViolation{Field: "payment_method_id", Description: MsgPaymentMethodNotFound})
	case errors.Is(err, app.ErrPaymentMethodNotUsable):
		return grpcserver.BadRequestOrdered("This payment method cannot be used for transfers yet. Please choose a card.",
			grpcserver.FieldViolation{Field: "payment_method_id", Description: "This payment method cannot be used for transfers yet. Please choose a card."})
	case errors.Is(err, domain.ErrNotCancellable):
		return status.Error(codes.FailedPrecondition, "Only a voucher that has not been collected, cancelled or expired can be cancelled.")
	case errors.Is(err, app.ErrUnavailable):
		s.logger.WarnContext(ctx, "a dependency is unavailable", "error", err)
		return grpcserver.WithRetryInfo(codes.Unavailable, "The service is temporarily unavailable. Please try again.", time.Second)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "request cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "the request took too long")
	default:
		return grpcserver.Unexpected(ctx, s.logger, err)
	}
}
