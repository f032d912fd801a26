package server_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/thumela/thumela/bff/internal/live"
	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
)

const phoneTaken = "You already have a saved recipient with this phone number. Edit or delete that one instead."

func (f *fakeTransfers) ListRecipients(ctx context.Context, req *transfersv1.ListRecipientsRequest) (*transfersv1.ListRecipientsResponse, error) {
	f.record(ctx, "ListRecipients", req)
	return &transfersv1.ListRecipientsResponse{Recipients: []*transfersv1.Recipient{
		{Id: "r-1", Name: "Naledi Mokoena", Phone: "+27835550101", Bank: feesv1.Bank_BANK_CAPITEC},
	}}, nil
}

func (f *fakeTransfers) UpdateRecipient(ctx context.Context, req *transfersv1.UpdateRecipientRequest) (*transfersv1.UpdateRecipientResponse, error) {
	f.record(ctx, "UpdateRecipient", req)
	st, _ := status.New(codes.AlreadyExists, phoneTaken).WithDetails(&errdetails.BadRequest{
		FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "phone", Description: phoneTaken}}})
	return nil, st.Err()
}

func (f *fakeTransfers) DeleteRecipient(ctx context.Context, req *transfersv1.DeleteRecipientRequest) (*transfersv1.DeleteRecipientResponse, error) {
	f.record(ctx, "DeleteRecipient", req)
	return &transfersv1.DeleteRecipientResponse{}, nil
}

// The recipients RPCs and the wizard's 'Save {name} for next time' reach transfers for the
// session's user; a refused edit keeps its field violation.
func TestRecipientsAreForwardedForTheSessionsUser(t *testing.T) {
	t.Parallel()
	b := newTransfersBFF(t)
	ctx := context.Background()
	recipients := bffv1connect.NewRecipientsServiceClient(b.hc, b.srv.URL)

	list, err := recipients.ListRecipients(ctx, &bffv1.ListRecipientsRequest{Query: "nal"})
	if err != nil {
		t.Fatal(err)
	}
	if got := list.GetRecipients(); len(got) != 1 || got[0].GetName() != "Naledi Mokoena" || got[0].GetBank() != bffv1.Bank_BANK_CAPITEC {
		t.Fatalf("recipients %v", got)
	}
	if got := b.transfers.last(t, "ListRecipients").req; !proto.Equal(got, &transfersv1.ListRecipientsRequest{Query: "nal"}) {
		t.Fatalf("transfers got %v", got)
	}

	_, err = recipients.UpdateRecipient(ctx, &bffv1.UpdateRecipientRequest{RecipientId: "r-2", Name: "Sipho", Phone: "083 555 0101", Bank: bffv1.Bank_BANK_FNB})
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != connect.CodeAlreadyExists || ce.Message() != phoneTaken {
		t.Fatalf("update: %v, want AlreadyExists", err)
	}
	if v := badRequest(t, ce).GetFieldViolations(); len(v) != 1 || v[0].GetField() != "phone" {
		t.Fatalf("violations %v", v)
	}
	want := &transfersv1.UpdateRecipientRequest{RecipientId: "r-2", Name: "Sipho", Phone: "083 555 0101", Bank: feesv1.Bank_BANK_FNB}
	if got := b.transfers.last(t, "UpdateRecipient").req; !proto.Equal(got, want) {
		t.Fatalf("transfers got %v", got)
	}

	if _, err := recipients.DeleteRecipient(ctx, &bffv1.DeleteRecipientRequest{RecipientId: "r-1"}); err != nil {
		t.Fatal(err)
	}
	if got := b.transfers.last(t, "DeleteRecipient").req; !proto.Equal(got, &transfersv1.DeleteRecipientRequest{RecipientId: "r-1"}) {
		t.Fatalf("transfers got %v", got)
	}

	if _, err := b.client().CreateTransfer(ctx, &bffv1.CreateTransferRequest{
		IdempotencyKey: "k-1", RecipientName: "Thandi", RecipientPhone: "082 123 4567", Bank: bffv1.Bank_BANK_FNB,
		AmountCents: 50000, PaymentMethodId: "pm-1", DoNotSaveRecipient: true,
	}); err != nil {
		t.Fatal(err)
	}
	if got := b.transfers.last(t, "CreateTransfer").req.(*transfersv1.CreateTransferRequest); !got.GetDoNotSaveRecipient() {
		t.Fatalf("do_not_save_recipient was not forwarded: %v", got)
	}
}

// A RecipientsChanged event of transfers reaches its user's tab as recipients_changed (the
// page lists the recipients again).
func TestLiveEventsForwardRecipientsChanged(t *testing.T) {
	t.Parallel()
	js := jetStream(t)
	bff := newLiveBFF(t, js, live.Limits{})
	events := signedIn(t, bff)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stream, _ := watch(t, ctx, events, "")

	publish(t, js, "thumela.transfers.u1.recipients", &transfersv1.RecipientsChanged{UserId: "u1"})
	got := next(t, stream)
	if got.GetRecipientsChanged() == nil || got.GetCursor() == "" {
		t.Fatalf("event = %v, want recipients_changed with a cursor", got)
	}
}
