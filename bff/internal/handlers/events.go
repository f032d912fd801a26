package handlers

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

// HeartbeatInterval keeps idle streams open through proxies and re-checks the session
// (the spec's realtime heartbeat is 30 s).
const HeartbeatInterval = 30 * time.Second

// Events implements thumela.bff.v1.EventsService: one server stream per signed-in tab carrying
// the user's own events from JetStream.
//
// Each stream reads THUMELA_EVENTS through an ordered consumer filtered to the user's subjects
// (thumela.<domain>.<user_id>.>), so another user's events never reach it: the filter is the
// scoping. The cursor is the stream sequence; a tab that reconnects with the last cursor it saw
// resumes right after it, and a new tab starts at the stream's end (its first message is a
// heartbeat carrying that cursor, so even a quiet tab can resume without a gap).
type Events struct {
	*Deps
}

var _ bffv1connect.EventsServiceHandler = (*Events)(nil)

// userDomains are the domains whose events a tab receives.
var userDomains = []string{bus.DomainTransfers, bus.DomainProfiles, bus.DomainPaymentMethods}

func (e *Events) WatchEvents(ctx context.Context, req *bffv1.WatchEventsRequest, out *connect.ServerStream[bffv1.WatchEventsResponse]) error {
	sessionToken := e.sessionToken(ctx)
	ctx, g, err := e.authed(ctx)
	if err != nil {
		return err
	}
	if e.JS == nil {
		return connect.NewError(connect.CodeUnavailable, errors.New("live events are not available"))
	}
	start, err := e.startSequence(ctx, req.GetResumeAfter())
	if err != nil {
		return err
	}
	filters := make([]string, 0, len(userDomains))
	for _, d := range userDomains {
		filters = append(filters, bus.Root+"."+d+"."+g.UserID+".>")
	}
	cons, err := e.JS.OrderedConsumer(ctx, bus.StreamEvents, jetstream.OrderedConsumerConfig{
		FilterSubjects: filters,
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    start,
	})
	if err != nil {
		return rpcerr.Internal(ctx, e.Logger, err)
	}
	msgs := make(chan jetstream.Msg, 64)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	})
	if err != nil {
		return rpcerr.Internal(ctx, e.Logger, err)
	}
	defer cc.Stop()
	e.Subscribers.Add(1)
	defer e.Subscribers.Add(-1)

	cursor := start - 1
	if err := out.Send(heartbeat(cursor)); err != nil {
		return err
	}
	ticker := time.NewTicker(HeartbeatInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ticker.C:
			// A session signed out (or expired) elsewhere ends the stream.
			if _, err := e.Tokens.Grant(ctx, sessionToken); errors.Is(err, session.ErrNoSession) {
				return rpcerr.Unauthenticated()
			}
			if err := out.Send(heartbeat(cursor)); err != nil {
				return err
			}
		case m := <-msgs:
			meta, err := m.Metadata()
			if err != nil {
				continue
			}
			cursor = meta.Sequence.Stream
			ev := e.toEvent(ctx, sessionToken, g.UserID, m)
			if ev == nil {
				continue
			}
			ev.Cursor = strconv.FormatUint(cursor, 10)
			if err := out.Send(ev); err != nil {
				return err
			}
		}
	}
}

// startSequence is where the consumer starts: right after the client's cursor, or after the
// stream's last message for a new tab.
func (e *Events) startSequence(ctx context.Context, resumeAfter string) (uint64, error) {
	if resumeAfter != "" {
		n, err := strconv.ParseUint(resumeAfter, 10, 64)
		if err != nil {
			return 0, rpcerr.InvalidArgument("resume_after is not a cursor this server issued")
		}
		return n + 1, nil
	}
	stream, err := e.JS.Stream(ctx, bus.StreamEvents)
	if err != nil {
		return 0, connect.NewError(connect.CodeUnavailable, errors.New("live events are temporarily unavailable"))
	}
	info, err := stream.Info(ctx)
	if err != nil {
		return 0, connect.NewError(connect.CodeUnavailable, errors.New("live events are temporarily unavailable"))
	}
	return info.State.LastSeq + 1, nil
}

func heartbeat(cursor uint64) *bffv1.WatchEventsResponse {
	return &bffv1.WatchEventsResponse{
		Cursor: strconv.FormatUint(cursor, 10),
		Event:  &bffv1.WatchEventsResponse_Heartbeat{Heartbeat: &bffv1.Heartbeat{}},
	}
}

// toEvent turns a bus message into the browser's event; nil for what the browser does not need.
// Subjects are thumela.<domain>.<user_id>.<event>.
func (e *Events) toEvent(ctx context.Context, sessionToken, userID string, m jetstream.Msg) *bffv1.WatchEventsResponse {
	parts := strings.Split(m.Subject(), ".")
	if len(parts) != 4 || parts[2] != userID {
		// The filter makes this impossible; checking again costs nothing.
		return nil
	}
	ctx, span := e.deliverySpan(ctx, m)
	defer span.End()
	switch parts[1] + "." + parts[3] {
	case bus.DomainTransfers + ".status":
		var ev transfersv1.TransferStatusChanged
		if proto.Unmarshal(m.Data(), &ev) != nil {
			return nil
		}
		return &bffv1.WatchEventsResponse{Event: &bffv1.WatchEventsResponse_TransferUpdated{
			TransferUpdated: &bffv1.TransferUpdated{Transfer: transferToBFF(ev.GetTransfer())},
		}}
	case bus.DomainTransfers + ".voucher":
		var ev transfersv1.VoucherChanged
		if proto.Unmarshal(m.Data(), &ev) != nil {
			return nil
		}
		// The voucher event names the transfer; the browser wants the whole transfer.
		g, err := e.Tokens.Grant(ctx, sessionToken)
		if err != nil {
			return nil
		}
		res, err := e.Transfers.GetTransfer(withBearer(ctx, g.AccessToken), &transfersv1.GetTransferRequest{UserId: userID, TransferId: ev.GetTransferId()})
		if err != nil {
			e.Logger.WarnContext(ctx, "live events: could not read the transfer of a voucher event", "err", err)
			return nil
		}
		return &bffv1.WatchEventsResponse{Event: &bffv1.WatchEventsResponse_TransferUpdated{
			TransferUpdated: &bffv1.TransferUpdated{Transfer: transferToBFF(res.GetTransfer())},
		}}
	case bus.DomainProfiles + ".updated":
		var ev profilesv1.ProfileUpdated
		if proto.Unmarshal(m.Data(), &ev) != nil {
			return nil
		}
		return &bffv1.WatchEventsResponse{Event: &bffv1.WatchEventsResponse_ProfileUpdated{
			ProfileUpdated: &bffv1.ProfileUpdated{Profile: profileToBFF(ev.GetProfile())},
		}}
	case bus.DomainPaymentMethods + ".changed":
		var ev paymentmethodsv1.PaymentMethodChanged
		if proto.Unmarshal(m.Data(), &ev) != nil {
			return nil
		}
		return &bffv1.WatchEventsResponse{Event: &bffv1.WatchEventsResponse_PaymentMethodsChanged{
			PaymentMethodsChanged: &bffv1.PaymentMethodsChanged{PaymentMethodId: ev.GetPaymentMethodId()},
		}}
	}
	return nil
}

// deliverySpan continues the event's trace (carried in the message headers from the outbox)
// into its delivery to the browser, so one trace follows a transfer to the screen.
func (e *Events) deliverySpan(ctx context.Context, m jetstream.Msg) (context.Context, trace.Span) {
	parent := bus.ExtractTrace(context.Background(), nats.Header(m.Headers()))
	link := trace.LinkFromContext(ctx)
	return otel.Tracer("thumela/bff").Start(parent, "bff.stream.deliver",
		trace.WithSpanKind(trace.SpanKindConsumer), trace.WithLinks(link))
}
