package handlers

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/proto"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	notificationsv1 "github.com/thumela/thumela/proto/gen/go/thumela/notifications/v1"
	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/bus"

	"github.com/thumela/thumela/bff/internal/historycache"
	"github.com/thumela/thumela/bff/internal/live"
	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/bff/internal/session"
)

// HeartbeatInterval keeps idle streams open through proxies and re-checks the session
// (the spec's realtime heartbeat is 30 s).
const HeartbeatInterval = 30 * time.Second

// Events implements thumela.bff.v1.EventsService: one server stream per signed-in tab carrying
// the user's own events from JetStream.
//
// The streams read the process's live hub (Deps.Live): one JetStream consumer for every tab,
// routing each event by the user id in its subject (thumela.<domain>.<user_id>.<event>), so a
// tab gets its own user's events only. The cursor is the stream sequence; a tab that reconnects
// with the last cursor it saw resumes right after it (from the hub's memory, or from JetStream
// for an old cursor), and a new tab starts at the hub's position (its first message is a
// heartbeat carrying that cursor, so even a quiet tab can resume without a gap).
type Events struct {
	*Deps
}

var _ bffv1connect.EventsServiceHandler = (*Events)(nil)

// userDomains are the domains whose events a tab receives. Deliveries are the notifications
// service's, on the sender's subject (thumela.deliveries.<user_id>.changed): the state of the
// SMS that carried a transfer's voucher to its recipient.
var userDomains = []string{bus.DomainTransfers, bus.DomainProfiles, bus.DomainPaymentMethods, bus.DomainDeliveries}

// LiveHub is the process's fan-out of the users' events to their tabs, decoded for the browser.
type LiveHub = live.Hub[*liveEvent]

// liveMessage is one routed event.
type liveMessage = live.Message[*liveEvent]

// liveEvent is a bus event decoded for the browser, once for every tab it goes to.
type liveEvent struct {
	// resp is what the tabs are sent, its cursor set; shared, so never modified.
	resp *bffv1.WatchEventsResponse
}

// NewLiveHub returns the hub of THUMELA_EVENTS' user domains; run it with Run for the life of
// the process. Zero limits take the live package's defaults. Every transfer event drops its
// sender's pages from history (nil: no cache) before any tab hears of it.
func NewLiveHub(js jetstream.JetStream, logger *slog.Logger, limits live.Limits, history *historycache.Cache) *LiveHub {
	return live.New(js, live.Config[*liveEvent]{
		Stream:  bus.StreamEvents,
		Domains: userDomains,
		Decode:  decodeEvent,
		Observe: func(m live.Raw) {
			if m.Domain == bus.DomainTransfers {
				history.Changed(m.UserID)
			}
		},
		Logger: logger,
		Limits: limits,
	})
}

func (e *Events) WatchEvents(ctx context.Context, req *bffv1.WatchEventsRequest, out *connect.ServerStream[bffv1.WatchEventsResponse]) error {
	sessionToken := e.sessionToken(ctx)
	ctx, g, err := e.authed(ctx)
	if err != nil {
		return err
	}
	if e.Live == nil {
		return connect.NewError(connect.CodeUnavailable, errors.New("live events are not available"))
	}
	from := live.Now()
	if c := req.GetResumeAfter(); c != "" {
		n, err := strconv.ParseUint(c, 10, 64)
		if err != nil {
			return rpcerr.InvalidArgument("resume_after is not a cursor this server issued")
		}
		from = live.After(n)
	}
	// A revocation heard from identity (any replica's sign-out, a password change, "sign out
	// other sessions") ends the stream at once.
	revoked, unwatch := e.Tokens.Watch(g.SessionID)
	defer unwatch()
	sub, err := e.Live.Subscribe(g.UserID, from)
	if errors.Is(err, live.ErrTooManyStreams) {
		// Not Unavailable: nothing is wrong with the service. The web client waits and tries
		// again, as after any refusal, and gets in once another of the user's tabs closes.
		e.Logger.WarnContext(ctx, "live events: stream refused, the user has too many open")
		return connect.NewError(connect.CodeResourceExhausted, errors.New("too many live connections are open for this account: close some tabs and try again"))
	}
	if err != nil {
		return e.unavailable(ctx, err)
	}
	defer sub.Close()

	if err := out.Send(heartbeat(sub.Cursor())); err != nil {
		return err
	}
	// What the tab missed while away, then what the hub routes from now on.
	if err := sub.CatchUp(ctx, func(m *liveMessage) error {
		return e.deliver(ctx, out, g.UserID, m, true)
	}); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return e.unavailable(ctx, err)
	}
	ticker := time.NewTicker(HeartbeatInterval)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-revoked.Done():
			return rpcerr.Unauthenticated()
		case <-ticker.C:
			// A session signed out (or expired) elsewhere ends the stream.
			if _, err := e.Tokens.Grant(ctx, sessionToken); errors.Is(err, session.ErrNoSession) {
				return rpcerr.Unauthenticated()
			}
			if err := out.Send(heartbeat(sub.Cursor())); err != nil {
				return err
			}
		case <-sub.Ready():
			for {
				m, ok, err := sub.Next()
				if err != nil {
					return e.unavailable(ctx, err)
				}
				if !ok {
					break
				}
				if err := e.deliver(ctx, out, g.UserID, m, false); err != nil {
					return err
				}
			}
		}
	}
}

// unavailable ends a stream with a retryable error: the client reconnects with its cursor and
// catches up (after falling behind, a shutdown, or NATS being unreachable).
func (e *Events) unavailable(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, live.ErrSlow):
		e.Logger.InfoContext(ctx, "live events: a tab fell behind; ended for it to resume")
	case errors.Is(err, live.ErrClosed), errors.Is(err, live.ErrNotReady):
		// Shutting down, or starting: nothing to say per tab (the hub logs its own state).
	default:
		e.Logger.WarnContext(ctx, "live events: stream ended", "err", err)
	}
	return connect.NewError(connect.CodeUnavailable, errors.New("live events are temporarily unavailable; reconnect with the last cursor"))
}

// deliver sends one event to the tab, in the event's trace; replayed says it was missed while
// the tab was away (CatchUp), not routed live.
func (e *Events) deliver(ctx context.Context, out *connect.ServerStream[bffv1.WatchEventsResponse], userID string, m *liveMessage, replayed bool) error {
	if m.UserID != userID {
		// The hub routes by user; checking again costs nothing.
		return nil
	}
	// The span continues the event's trace; the context stays the stream's, for cancellation.
	_, span := deliverySpan(m.Trace)
	defer span.End()
	ctx = trace.ContextWithSpan(ctx, span)
	resp := m.Event.resp
	if err := out.Send(resp); err != nil {
		return err
	}
	if replayed {
		e.Live.Replayed(ctx)
	} else {
		e.Live.Delivered(ctx, m)
	}
	return nil
}

func heartbeat(cursor uint64) *bffv1.WatchEventsResponse {
	return &bffv1.WatchEventsResponse{
		Cursor: strconv.FormatUint(cursor, 10),
		Event:  &bffv1.WatchEventsResponse_Heartbeat{Heartbeat: &bffv1.Heartbeat{}},
	}
}

func transferUpdated(seq uint64, t *transfersv1.Transfer) *bffv1.WatchEventsResponse {
	return &bffv1.WatchEventsResponse{
		Cursor: strconv.FormatUint(seq, 10),
		Event: &bffv1.WatchEventsResponse_TransferUpdated{
			TransferUpdated: &bffv1.TransferUpdated{Transfer: transferToBFF(t)},
		},
	}
}

// decodeEvent turns a bus event into the browser's; false for what the browser does not need
// (or what does not decode).
func decodeEvent(r live.Raw) (*liveEvent, bool) {
	cursor := strconv.FormatUint(r.Seq, 10)
	switch r.Domain + "." + r.Event {
	case bus.DomainTransfers + ".status":
		var ev transfersv1.TransferStatusChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: transferUpdated(r.Seq, ev.GetTransfer())}, true
	case bus.DomainTransfers + ".voucher":
		var ev transfersv1.VoucherChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		if ev.GetTransfer() == nil {
			return nil, false
		}
		return &liveEvent{resp: transferUpdated(r.Seq, ev.GetTransfer())}, true
	case bus.DomainProfiles + ".updated":
		var ev profilesv1.ProfileUpdated
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_ProfileUpdated{
			ProfileUpdated: &bffv1.ProfileUpdated{Profile: profileToBFF(ev.GetProfile())},
		}}}, true
	case bus.DomainPaymentMethods + ".changed":
		var ev paymentmethodsv1.PaymentMethodChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_PaymentMethodsChanged{
			PaymentMethodsChanged: &bffv1.PaymentMethodsChanged{PaymentMethodId: ev.GetPaymentMethodId()},
		}}}, true
	case bus.DomainTransfers + ".recipients":
		// The tab lists the recipients again; the event carries nothing it needs.
		var ev transfersv1.RecipientsChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_RecipientsChanged{
			RecipientsChanged: &bffv1.RecipientsChanged{},
		}}}, true
	case bus.DomainTransfers + ".schedules":
		// Like recipients: the tab lists the recurring sends again.
		var ev transfersv1.SchedulesChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_SchedulesChanged{
			SchedulesChanged: &bffv1.SchedulesChanged{},
		}}}, true
	case bus.DomainTransfers + ".credit":
		// The balance comes along so the wizard's "Credit applied" can update without a read;
		// /refer-friend reads GetCredit again for the figures and movements.
		var ev transfersv1.CreditChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_CreditChanged{
			CreditChanged: &bffv1.CreditChanged{BalanceCents: ev.GetBalanceCents()},
		}}}, true
	case bus.DomainDeliveries + ".changed":
		var ev notificationsv1.DeliveryChanged
		if proto.Unmarshal(r.Data, &ev) != nil {
			return nil, false
		}
		// The tab shows only the voucher SMS of a transfer; e-mails go to the user themself.
		d := ev.GetDelivery()
		if !isVoucherSMS(d) {
			return nil, false
		}
		return &liveEvent{resp: &bffv1.WatchEventsResponse{Cursor: cursor, Event: &bffv1.WatchEventsResponse_SmsDeliveryChanged{
			SmsDeliveryChanged: &bffv1.SmsDeliveryChanged{TransferId: d.GetReference(), SmsDelivery: smsDeliveryToBFF(d)},
		}}}, true
	}
	return nil, false
}

// deliverySpan continues the event's trace (carried in the message headers from the outbox,
// extracted once by the hub) into its delivery to one tab, so one trace follows a transfer to
// the screen. The stream itself has no span (server.notALiveStream), so there is nothing to
// link to.
func deliverySpan(parent context.Context) (context.Context, trace.Span) {
	if parent == nil {
		parent = context.Background()
	}
	return otel.Tracer("thumela/bff").Start(parent, "bff.stream.deliver", trace.WithSpanKind(trace.SpanKindConsumer))
}
