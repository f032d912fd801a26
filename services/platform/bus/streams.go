package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Stream names.
const (
	StreamEvents        = "THUMELA_EVENTS"
	StreamNotifications = "THUMELA_NOTIFICATIONS"
	// StreamNotificationsDead keeps the notification requests that can never be sent (a
	// payload that does not decode, secrets sealed under an unknown key, an unknown template),
	// with the reason, for someone to look at. Nothing consumes it automatically.
	StreamNotificationsDead = "THUMELA_NOTIFICATIONS_DEAD"
	StreamAnalytics         = "THUMELA_ANALYTICS"
)

// NotificationRetention is how long a notification request may wait on its stream: the
// notifications service retries a transient failure for up to 24 hours, and an hour more
// covers a consumer that was down when the last retry fell due.
const NotificationRetention = 25 * time.Hour

// DuplicateWindow is how long JetStream remembers a Nats-Msg-Id. The outbox relay may
// re-publish a message after a crash between publish and commit; the window must outlast the
// relay's restart so the copy is dropped.
const DuplicateWindow = 10 * time.Minute

type streamOptions struct{ replicas int }

// StreamOption tunes StreamConfigs and EnsureStreams.
type StreamOption func(*streamOptions)

// WithReplicas sets the replica count of every stream: 1 for a single local server, 3 for the
// production cluster.
func WithReplicas(n int) StreamOption { return func(o *streamOptions) { o.replicas = n } }

// StreamConfigs returns the configuration of Thumela's streams. Every stream keeps the outbox's
// duplicate window, since every one of them is fed through an outbox.
func StreamConfigs(opts ...StreamOption) []jetstream.StreamConfig {
	o := streamOptions{replicas: 1}
	for _, opt := range opts {
		opt(&o)
	}
	return []jetstream.StreamConfig{
		{
			Name:        StreamEvents,
			Description: "Domain events of the services, per user",
			Subjects: []string{
				Root + "." + DomainIdentity + ".>",
				Root + "." + DomainProfiles + ".>",
				Root + "." + DomainPaymentMethods + ".>",
				Root + "." + DomainTransfers + ".>",
				Root + "." + DomainDeliveries + ".>",
			},
			Storage:    jetstream.FileStorage,
			Retention:  jetstream.LimitsPolicy,
			MaxAge:     7 * 24 * time.Hour,
			Duplicates: DuplicateWindow,
			Replicas:   o.replicas,
		},
		{
			// A work queue: the notifications service is its only consumer, and a request
			// leaves the stream when it is acknowledged, i.e. once it was sent or failed for good.
			Name:        StreamNotifications,
			Description: "SMS and e-mail to send (requests; secrets sealed for the notifications service)",
			Subjects:    []string{Root + "." + DomainNotifications + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.WorkQueuePolicy,
			MaxAge:      NotificationRetention,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
		{
			Name:        StreamNotificationsDead,
			Description: "Notification requests that can never be sent, with the reason",
			Subjects:    []string{Root + "." + DomainNotificationsDead + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      30 * 24 * time.Hour,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
		{
			Name:        StreamAnalytics,
			Description: "Product analytics; oldest data is dropped first when full",
			Subjects:    []string{Root + "." + DomainAnalytics + ".>"},
			Storage:     jetstream.FileStorage,
			Retention:   jetstream.LimitsPolicy,
			MaxAge:      30 * 24 * time.Hour,
			MaxBytes:    1 << 30,
			Discard:     jetstream.DiscardOld,
			Duplicates:  DuplicateWindow,
			Replicas:    o.replicas,
		},
	}
}

// ErrStreamDrift: a stream exists with another configuration than this release's, and the
// connection may not change it (a service). The stream works as it is; the release that changed
// StreamConfigs applies the change with the streams administrator (natsauth streams).
var ErrStreamDrift = errors.New("bus: stream configuration differs from this release's")

// EnsureStreams creates Thumela's streams that the connection's identity may create and, when it
// may also change them (the streams administrator, or a connection without credentials to a
// server without authorization), updates them to StreamConfigs. It is idempotent and every
// service calls it at start, so no start order between services is needed; a service that only
// consumes a stream waits for a publisher to create it. A service may only create: a stream it
// finds with another configuration is left as it is, and after every other stream was ensured
// the error is ErrStreamDrift naming it, which the service logs and starts regardless.
func EnsureStreams(ctx context.Context, js jetstream.JetStream, opts ...StreamOption) error {
	id, named := connectionIdentity(js)
	update, creatable := !named || id.UpdatesStreams(), id.CreatableStreams()
	var drifted []string
	for _, cfg := range StreamConfigs(opts...) {
		if named && !slices.Contains(creatable, cfg.Name) {
			continue
		}
		if !update {
			if _, err := js.CreateStream(ctx, cfg); errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				drifted = append(drifted, cfg.Name)
			} else if err != nil {
				return fmt.Errorf("bus: create stream %s: %w", cfg.Name, err)
			}
			continue
		}
		if err := replaceLegacyNotifications(ctx, js, cfg); err != nil {
			return err
		}
		if _, err := js.CreateOrUpdateStream(ctx, cfg); err != nil {
			return fmt.Errorf("bus: ensure stream %s: %w", cfg.Name, err)
		}
	}
	if len(drifted) > 0 {
		return fmt.Errorf("%w: %s (apply it with natsauth streams)", ErrStreamDrift, strings.Join(drifted, ", "))
	}
	return nil
}

// AdministerStreams connects to url as the streams administrator (creds: its seed, and the CA
// for TLS) and brings every stream to StreamConfigs, creating those missing and changing those
// that differ: what a release that changes StreamConfigs runs (natsauth streams), and what the
// dev stack does before its services start.
func AdministerStreams(ctx context.Context, url string, creds Credentials, logger *slog.Logger, opts ...StreamOption) error {
	creds.Identity = IdentityStreams
	nc, js, err := Connect(ctx, url, IdentityStreams, logger, WithCredentials(creds))
	if err != nil {
		return err
	}
	defer nc.Close()
	return EnsureStreams(ctx, js, opts...)
}

// WarnUnensured logs an error of EnsureStreams for on-call, at warning level: the process runs
// either way. A drift is a release's stream change not applied yet; anything else is a NATS not
// reachable yet, whose streams the outbox relays' retries wait for.
func WarnUnensured(logger *slog.Logger, err error) {
	switch {
	case err == nil:
	case errors.Is(err, ErrStreamDrift):
		logger.Warn("a stream's configuration differs from this release's; it works as it is until the streams administrator applies the change",
			"err", err)
	default:
		logger.Warn("could not ensure the streams yet; publishing retries until they exist", "err", err)
	}
}

// connectionIdentity returns the identity the connection's inbox prefix names (see Connect);
// named is false for a connection that names no identity of the table.
func connectionIdentity(js jetstream.JetStream) (id Identity, named bool) {
	nc := js.Conn()
	if nc == nil {
		return Identity{}, false
	}
	name, ok := strings.CutPrefix(nc.Opts.InboxPrefix, InboxPrefix(""))
	if !ok {
		return Identity{}, false
	}
	return Lookup(name)
}

// replaceLegacyNotifications deletes a notifications stream of the first design (limits
// retention, 7 days), which JetStream cannot turn into a work queue in place. Its messages
// were never sent by anything (no delivery service existed) and carried PINs and codes in
// clear, so they are dropped rather than migrated.
func replaceLegacyNotifications(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) error {
	if cfg.Name != StreamNotifications {
		return nil
	}
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("bus: read stream %s: %w", cfg.Name, err)
	}
	if s.CachedInfo().Config.Retention == cfg.Retention {
		return nil
	}
	if err := js.DeleteStream(ctx, cfg.Name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("bus: replace legacy stream %s: %w", cfg.Name, err)
	}
	return nil
}
