package handlers

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"connectrpc.com/connect"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
	"github.com/thumela/thumela/proto/gen/go/thumela/bff/v1/bffv1connect"
	"github.com/thumela/thumela/services/platform/bus"

	"github.com/thumela/thumela/bff/internal/rpcerr"
	"github.com/thumela/thumela/services/platform/intconv"
)

// AnalyticsEvents are the event names the web client may report: the spec's list (section 7)
// plus the page-view, page-leave, identify and reset events of the analytics layer itself.
// Anything else is refused, so the stream holds only what the product meant to record.
var AnalyticsEvents = map[string]bool{
	"transaction_started":         true,
	"transaction_completed":       true,
	"transaction_failed":          true,
	"transaction_step_completed":  true,
	"user_logged_in":              true,
	"user_signed_up":              true,
	"user_logged_out":             true,
	"password_reset_requested":    true,
	"profile_updated":             true,
	"Application Closed":          true,
	"landing_page_viewed":         true,
	"clicked_features_section":    true,
	"js_error":                    true,
	"unhandled_promise_rejection": true,
	"$pageview":                   true,
	"$pageleave":                  true,
	"$identify":                   true,
	"$reset":                      true,
}

const (
	maxAnalyticsBatch      = 50
	maxAnalyticsEventBytes = 8 << 10
	// maxAnalyticsBatchBytes bounds what one call may add to THUMELA_ANALYTICS: with the rate
	// limit (docs/security-ratelimits.md) one address needs close to an hour, not a few
	// thousand calls, to push a gibibyte through the stream.
	maxAnalyticsBatchBytes = 64 << 10
)

// MaxTrackRequestBytes is the largest Track request the BFF reads at all (the server's read
// limit for AnalyticsService): a batch at its limit plus the JSON's overhead.
const MaxTrackRequestBytes = 2 * maxAnalyticsBatchBytes

var anonymousID = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// anonymousSubjectPrefix starts the subject token of a signed-out visitor's events
// (thumela.analytics.anon-<anonymous id>.event), so that none can share a user's token.
const anonymousSubjectPrefix = "anon-"

// Analytics implements thumela.bff.v1.AnalyticsService: first-party analytics. Batches from
// the browser are validated and published on THUMELA_ANALYTICS
// (thumela.analytics.<user id, or anon-<anonymous id>>.event); nothing is sent to any third
// party.
type Analytics struct {
	*Deps
}

var _ bffv1connect.AnalyticsServiceHandler = (*Analytics)(nil)

func (a *Analytics) Track(ctx context.Context, req *bffv1.TrackRequest) (*bffv1.TrackResponse, error) {
	if len(req.GetEvents()) == 0 {
		return &bffv1.TrackResponse{}, nil
	}
	if len(req.GetEvents()) > maxAnalyticsBatch {
		return nil, rpcerr.InvalidArgument(fmt.Sprintf("a batch holds at most %d events", maxAnalyticsBatch))
	}
	if !anonymousID.MatchString(req.GetAnonymousId()) {
		return nil, rpcerr.InvalidArgument("anonymous_id is missing or malformed")
	}
	if proto.Size(req) > maxAnalyticsBatchBytes {
		return nil, rpcerr.InvalidArgument("the batch is too large")
	}
	for _, ev := range req.GetEvents() {
		if !AnalyticsEvents[ev.GetName()] {
			return nil, rpcerr.InvalidArgument(fmt.Sprintf("unknown analytics event %q", ev.GetName()))
		}
		if proto.Size(ev) > maxAnalyticsEventBytes {
			return nil, rpcerr.InvalidArgument(fmt.Sprintf("event %q is too large", ev.GetName()))
		}
	}
	if a.JS == nil {
		return nil, connect.NewError(connect.CodeUnavailable, errors.New("analytics are not available"))
	}
	// Signed-out visitors are counted under "anon-" and their anonymous id, a subject token no
	// user id can be; signed-in users under their id, which the server knows from the session
	// (never from the request: a visitor could name any user's id as its anonymous id or in its
	// properties, and file events under that user).
	who := anonymousSubjectPrefix + req.GetAnonymousId()
	userID := ""
	if g, err := a.Tokens.Grant(ctx, a.sessionToken(ctx)); err == nil {
		who, userID = g.UserID, g.UserID
	}
	subject, err := bus.Subject(bus.DomainAnalytics, who, "event")
	if err != nil {
		return nil, rpcerr.InvalidArgument("anonymous_id is malformed")
	}
	received := timestamppb.New(time.Now())
	acks := make([]jetstream.PubAckFuture, 0, len(req.GetEvents()))
	for _, ev := range req.GetEvents() {
		props := ev.GetProperties()
		if props == nil {
			props = &structpb.Struct{Fields: map[string]*structpb.Value{}}
		}
		props.Fields["received_at"] = structpb.NewStringValue(received.AsTime().Format(time.RFC3339Nano))
		props.Fields["anonymous_id"] = structpb.NewStringValue(req.GetAnonymousId())
		delete(props.Fields, "user_id")
		if userID != "" {
			props.Fields["user_id"] = structpb.NewStringValue(userID)
		}
		ev.Properties = props
		b, err := proto.Marshal(ev)
		if err != nil {
			return nil, rpcerr.Internal(ctx, a.Logger, err)
		}
		msg := &nats.Msg{Subject: subject, Data: b, Header: nats.Header{}}
		bus.InjectTrace(ctx, msg.Header)
		f, err := a.JS.PublishMsgAsync(msg)
		if err != nil {
			return nil, rpcerr.Internal(ctx, a.Logger, err)
		}
		acks = append(acks, f)
	}
	// The batch is accepted once JetStream has stored it.
	timeout := time.After(5 * time.Second)
	for _, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return nil, rpcerr.Internal(ctx, a.Logger, err)
		case <-timeout:
			return nil, connect.NewError(connect.CodeUnavailable, errors.New("analytics are temporarily unavailable"))
		}
	}
	return &bffv1.TrackResponse{Accepted: intconv.Int32(len(req.GetEvents()))}, nil
}
