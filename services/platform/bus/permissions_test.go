package bus_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/natstest"
)

// refusalWait bounds an operation expected to be refused: the server answers a permission
// violation at once, so the error handler fires well before.
const refusalWait = 3 * time.Second

// client is one identity's connection, with the permission violations the server reported.
type client struct {
	name       string
	nc         *nats.Conn
	js         jetstream.JetStream
	violations chan error
}

func connectAs(t *testing.T, srv *natstest.Server, identity string) *client {
	t.Helper()
	c := &client{name: identity, violations: make(chan error, 64)}
	opts := append(srv.Options(identity), nats.Name("permissions-test-"+identity),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrPermissionViolation) {
				select {
				case c.violations <- err:
				default:
				}
			}
		}))
	nc, err := nats.Connect(srv.URL(), opts...)
	if err != nil {
		t.Fatalf("connect as %s: %v", identity, err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	c.nc, c.js = nc, js
	return c
}

// refused runs op and requires the server to refuse it with a permission violation that names
// subject, and op not to succeed.
func (c *client) refused(t *testing.T, what, subject string, op func(ctx context.Context) error) {
	t.Helper()
	for len(c.violations) > 0 {
		<-c.violations //nolint:errcheck // an earlier operation's violation: drained, not this one's
	}
	ctx, cancel := context.WithTimeout(t.Context(), refusalWait)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- op(ctx) }()
	for {
		select {
		case v := <-c.violations:
			if strings.Contains(v.Error(), subject) {
				cancel()
				<-done //nolint:errcheck // op ends with the cancellation; the refusal is the violation
				return
			}
		case err := <-done:
			if err == nil {
				t.Errorf("%s: %s succeeded, want refused", c.name, what)
				return
			}
			// The operation failed (timed out); the violation may still be on its way.
			select {
			case v := <-c.violations:
				if strings.Contains(v.Error(), subject) {
					return
				}
				t.Errorf("%s: %s: violation %v does not name %s", c.name, what, v, subject)
			case <-time.After(time.Second):
				t.Errorf("%s: %s failed with %v but no permission violation on %s was reported", c.name, what, err, subject)
			}
			return
		}
	}
}

// concrete turns a table subject into one a client can publish to.
func concrete(subject string) string {
	s := strings.ReplaceAll(subject, "*", "u1")
	return strings.Replace(s, ">", "u1.test", 1)
}

func TestNoCredentialsIsRefused(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	if nc, err := nats.Connect(srv.URL(), nats.Name("anonymous")); err == nil {
		nc.Close()
		t.Fatal("a client without credentials got in")
	} else if !errors.Is(err, nats.ErrAuthorization) && !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Errorf("connect without credentials: %v, want an authorization violation", err)
	}
	// An NKey the server does not know is refused as well.
	kp, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	file := filepath.Join(t.TempDir(), "stranger.nk")
	if err := os.WriteFile(file, seed, 0o600); err != nil {
		t.Fatal(err)
	}
	opt, err := nats.NkeyOptionFromSeed(file)
	if err != nil {
		t.Fatal(err)
	}
	if nc, err := nats.Connect(srv.URL(), opt); err == nil {
		nc.Close()
		t.Fatal("a client with an unknown NKey got in")
	}
}

// TestEachIdentityCanDoItsJob: every row of the table, against a server that enforces it,
// can publish on its subjects, create the streams it owns, read its durables and its ordered
// consumers and use its KV buckets.
func TestEachIdentityCanDoItsJob(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	for _, id := range bus.Services() {
		t.Run(id.Name, func(t *testing.T) {
			c := connectAs(t, srv, id.Name)
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			// The streams it owns it creates itself; the others exist already when it reads.
			if err := bus.EnsureStreams(ctx, c.js); err != nil {
				t.Fatalf("EnsureStreams: %v", err)
			}
			admin := connectAs(t, srv, bus.IdentityAdmin)
			if err := bus.EnsureStreams(ctx, admin.js); err != nil {
				t.Fatal(err)
			}
			for _, s := range id.CreatableStreams() {
				if _, err := c.js.Stream(ctx, s); err != nil {
					t.Errorf("stream %s: %v", s, err)
				}
			}
			for _, subj := range id.Publishes {
				if _, err := c.js.Publish(ctx, concrete(subj), []byte("x")); err != nil {
					t.Errorf("publish %s: %v", concrete(subj), err)
				}
			}
			for _, d := range id.Durables {
				if _, err := admin.js.Publish(ctx, concrete(d.Filter), []byte("x")); err != nil {
					t.Fatal(err)
				}
				cons, err := c.js.CreateOrUpdateConsumer(ctx, d.Stream, jetstream.ConsumerConfig{
					Durable: d.Name, FilterSubject: d.Filter, AckPolicy: jetstream.AckExplicitPolicy,
				})
				if err != nil {
					t.Fatalf("durable %s: %v", d.Name, err)
				}
				if _, err := cons.Info(ctx); err != nil {
					t.Errorf("durable %s info: %v", d.Name, err)
				}
				batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
				if err != nil {
					t.Fatalf("durable %s fetch: %v", d.Name, err)
				}
				n := 0
				for m := range batch.Messages() {
					n++
					if err := m.DoubleAck(ctx); err != nil {
						t.Errorf("durable %s ack: %v", d.Name, err)
					}
				}
				if n != 1 || batch.Error() != nil {
					t.Errorf("durable %s fetched %d messages (%v), want 1", d.Name, n, batch.Error())
				}
			}
			for _, r := range id.Reads {
				for _, f := range r.Filters {
					if _, err := admin.js.Publish(ctx, concrete(f), []byte("x")); err != nil {
						t.Fatal(err)
					}
				}
				// Both forms: several filters (the BFF's hub and streams) and one (revocations).
				for _, filters := range [][]string{r.Filters, r.Filters[len(r.Filters)-1:]} {
					cons, err := c.js.OrderedConsumer(ctx, r.Stream, jetstream.OrderedConsumerConfig{FilterSubjects: filters})
					if err != nil {
						t.Fatalf("ordered consumer on %s %v: %v", r.Stream, filters, err)
					}
					if _, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second)); err != nil {
						t.Errorf("ordered consumer on %s %v: next: %v", r.Stream, filters, err)
					}
				}
			}
			for _, b := range id.KeyValues {
				kv, err := c.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: b, TTL: time.Minute})
				if err != nil {
					t.Fatalf("KV %s: %v", b, err)
				}
				rev, err := kv.Create(ctx, "ip.127-0-0-1", []byte("1"))
				if err != nil {
					t.Fatalf("KV %s create: %v", b, err)
				}
				if _, err := kv.Update(ctx, "ip.127-0-0-1", []byte("2"), rev); err != nil {
					t.Errorf("KV %s update: %v", b, err)
				}
				if e, err := kv.Get(ctx, "ip.127-0-0-1"); err != nil || string(e.Value()) != "2" {
					t.Errorf("KV %s get: %v", b, err)
				}
				if _, err := kv.Put(ctx, "ip.127-0-0-2", []byte("1")); err != nil {
					t.Errorf("KV %s put: %v", b, err)
				}
			}
			for _, b := range id.WatchesKeyValues {
				// The owner creates and writes it; this identity only watches and reads.
				owned, err := admin.js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: b})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := owned.Put(ctx, "current", []byte("v1")); err != nil {
					t.Fatal(err)
				}
				kv, err := c.js.KeyValue(ctx, b)
				if err != nil {
					t.Fatalf("KV %s: %v", b, err)
				}
				w, err := kv.Watch(ctx, "current")
				if err != nil {
					t.Fatalf("KV %s watch: %v", b, err)
				}
				select {
				case e := <-w.Updates():
					if e == nil || string(e.Value()) != "v1" {
						t.Errorf("KV %s watch: first update %v, want v1", b, e)
					}
				case <-ctx.Done():
					t.Fatalf("KV %s watch: no update", b)
				}
				if err := w.Stop(); err != nil {
					t.Errorf("KV %s watch stop: %v", b, err)
				}
				if e, err := kv.Get(ctx, "current"); err != nil || string(e.Value()) != "v1" {
					t.Errorf("KV %s get: %v", b, err)
				}
			}
		})
	}
}

// TestIdentitiesAreConfinedToTheirRows: another service's credentials cannot publish on a
// service's subjects, create or read its durables, read a stream the table does not grant, nor
// read another identity's replies; the observer publishes nothing.
func TestIdentitiesAreConfinedToTheirRows(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	admin := connectAs(t, srv, bus.IdentityAdmin)
	if err := bus.EnsureStreams(t.Context(), admin.js); err != nil {
		t.Fatal(err)
	}
	ids := append(bus.Services(), bus.Observer(), bus.StreamsAdmin())
	for _, a := range ids {
		t.Run(a.Name, func(t *testing.T) {
			t.Parallel()
			c := connectAs(t, srv, a.Name)
			for _, b := range bus.Services() {
				if b.Name == a.Name {
					continue
				}
				// No subject is shared: even the notification requests are each publisher's own
				// (bus.NotificationSubject), so no service can ask in another's name.
				for _, subj := range b.Publishes {
					s := concrete(subj)
					c.refused(t, "publish on "+s, s, func(ctx context.Context) error {
						_, err := c.js.Publish(ctx, s, []byte("forged"))
						return err
					})
				}
				for _, d := range b.Durables {
					subj := fmt.Sprintf("$JS.API.CONSUMER.CREATE.%s.%s", d.Stream, d.Name)
					c.refused(t, "create "+b.Name+"'s durable", subj, func(ctx context.Context) error {
						_, err := c.js.CreateOrUpdateConsumer(ctx, d.Stream, jetstream.ConsumerConfig{Durable: d.Name, FilterSubject: d.Filter})
						return err
					})
					next := fmt.Sprintf("$JS.API.CONSUMER.MSG.NEXT.%s.%s", d.Stream, d.Name)
					c.refused(t, "pull from "+b.Name+"'s durable", next, func(ctx context.Context) error {
						msg, err := c.nc.RequestWithContext(ctx, next, []byte(`{"batch":1,"no_wait":true}`))
						if err == nil && msg.Header.Get("Status") != "" {
							return fmt.Errorf("status %s", msg.Header.Get("Status"))
						}
						return err
					})
				}
				other := bus.InboxPrefix(b.Name) + ".>"
				c.refused(t, "subscribe to "+b.Name+"'s replies", other, func(ctx context.Context) error {
					sub, err := c.nc.Subscribe(other, func(*nats.Msg) {})
					if err != nil {
						return err
					}
					defer func() { _ = sub.Unsubscribe() }() // the connection closes with the test anyway
					if err := c.nc.FlushWithContext(ctx); err != nil {
						return err
					}
					<-ctx.Done() // the refusal is asynchronous
					return ctx.Err()
				})
			}
			// Streams not granted: no consumer on them, no message read.
			for _, cfg := range bus.StreamConfigs() {
				if a.ReadAll || slices.ContainsFunc(a.Reads, func(r bus.Read) bool { return r.Stream == cfg.Name }) {
					continue
				}
				subj := "$JS.API.CONSUMER.CREATE." + cfg.Name
				c.refused(t, "read "+cfg.Name, subj, func(ctx context.Context) error {
					cons, err := c.js.OrderedConsumer(ctx, cfg.Name, jetstream.OrderedConsumerConfig{FilterSubjects: []string{">"}})
					if err != nil {
						return err
					}
					_, err = cons.Next(jetstream.FetchContext(ctx))
					return err
				})
				if !slices.Contains(a.CreatableStreams(), cfg.Name) {
					get := "$JS.API.STREAM.MSG.GET." + cfg.Name
					c.refused(t, "get a message of "+cfg.Name, get, func(ctx context.Context) error {
						_, err := c.nc.RequestWithContext(ctx, get, []byte(`{"seq":1}`))
						return err
					})
				}
			}
			// No stream may it change (not even those it publishes to and may create: the
			// others' events land there too) but the streams administrator; none may it delete.
			for _, cfg := range bus.StreamConfigs() {
				if !a.UpdatesStreams() {
					upd := "$JS.API.STREAM.UPDATE." + cfg.Name
					c.refused(t, "update "+cfg.Name, upd, func(ctx context.Context) error {
						cfg.MaxAge = time.Second
						_, err := c.js.UpdateStream(ctx, cfg)
						return err
					})
				}
				del := "$JS.API.STREAM.DELETE." + cfg.Name
				c.refused(t, "delete "+cfg.Name, del, func(ctx context.Context) error {
					return c.js.DeleteStream(ctx, cfg.Name)
				})
				purge := "$JS.API.STREAM.PURGE." + cfg.Name
				c.refused(t, "purge "+cfg.Name, purge, func(ctx context.Context) error {
					_, err := c.nc.RequestWithContext(ctx, purge, nil)
					return err
				})
			}
			// Nobody writes a bucket it does not own (a watcher neither).
			for _, b := range bus.Services() {
				for _, bucket := range b.KeyValues {
					if slices.Contains(a.KeyValues, bucket) {
						continue
					}
					kv := "$KV." + bucket + ".x"
					c.refused(t, "write "+bucket, kv, func(ctx context.Context) error {
						_, err := c.js.Publish(ctx, kv, []byte("0"))
						return err
					})
				}
			}
		})
	}
	// The observer, read-only, publishes on no stream subject at all.
	obs := connectAs(t, srv, bus.IdentityObserver)
	for _, cfg := range bus.StreamConfigs() {
		s := concrete(cfg.Subjects[0])
		obs.refused(t, "publish on "+s, s, func(ctx context.Context) error {
			_, err := obs.js.Publish(ctx, s, []byte("forged"))
			return err
		})
	}
}

// TestObserverReadsWithoutTakingWork: the dev tools' identity reads the events stream and
// taps subjects, but cannot consume the notifications work queue (which would take requests
// from the notifications service).
func TestObserverReadsWithoutTakingWork(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	admin := connectAs(t, srv, bus.IdentityAdmin)
	if err := bus.EnsureStreams(t.Context(), admin.js); err != nil {
		t.Fatal(err)
	}
	obs := connectAs(t, srv, bus.IdentityObserver)
	tap, err := obs.nc.SubscribeSync("thumela.transfers.*.status")
	if err != nil {
		t.Fatal(err)
	}
	if err := obs.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.js.Publish(t.Context(), "thumela.transfers.u1.status", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := tap.NextMsg(5 * time.Second); err != nil {
		t.Errorf("tap: %v", err)
	}
	cons, err := obs.js.OrderedConsumer(t.Context(), bus.StreamEvents, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatalf("ordered consumer: %v", err)
	}
	if _, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second)); err != nil {
		t.Errorf("next: %v", err)
	}
	s, err := obs.js.Stream(t.Context(), bus.StreamNotifications)
	if err != nil {
		t.Fatalf("stream info: %v", err)
	}
	if _, err := s.Info(t.Context()); err != nil {
		t.Errorf("stream info: %v", err)
	}
	obs.refused(t, "consume the work queue", "$JS.API.CONSUMER.CREATE."+bus.StreamNotifications, func(ctx context.Context) error {
		_, err := obs.js.OrderedConsumer(ctx, bus.StreamNotifications, jetstream.OrderedConsumerConfig{})
		return err
	})
}

// TestOnlyTheStreamsAdministratorChangesAStream: a service creates a missing stream it publishes
// to, but one configured otherwise it leaves as it is (ErrStreamDrift, the configuration
// unchanged); the streams administrator applies the release's configuration.
func TestOnlyTheStreamsAdministratorChangesAStream(t *testing.T) {
	t.Parallel()
	srv := natstest.Start(t)
	ctx := t.Context()
	transfers := connectAs(t, srv, "transfers")
	if err := bus.EnsureStreams(ctx, transfers.js); err != nil {
		t.Fatalf("a service creating its missing streams: %v", err)
	}
	if err := bus.EnsureStreams(ctx, transfers.js); err != nil {
		t.Fatalf("a service ensuring streams that are as configured: %v", err)
	}
	// An older release's configuration (another retention), set by the administrator.
	admin := connectAs(t, srv, bus.IdentityAdmin)
	old := bus.StreamConfigs()[0]
	old.MaxAge = time.Hour
	if _, err := admin.js.UpdateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	maxAge := func() time.Duration {
		t.Helper()
		s, err := admin.js.Stream(ctx, old.Name)
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().Config.MaxAge
	}
	if err := bus.EnsureStreams(ctx, transfers.js); !errors.Is(err, bus.ErrStreamDrift) || !strings.Contains(err.Error(), old.Name) {
		t.Fatalf("a service finding %s configured otherwise: %v, want ErrStreamDrift naming it", old.Name, err)
	}
	if got := maxAge(); got != time.Hour {
		t.Fatalf("a service changed %s: max age %v", old.Name, got)
	}
	creds := srv.Credentials(bus.IdentityStreams)
	if err := bus.AdministerStreams(ctx, srv.URL(), creds, nil); err != nil {
		t.Fatalf("the streams administrator: %v", err)
	}
	if got, want := maxAge(), bus.StreamConfigs()[0].MaxAge; got != want {
		t.Fatalf("after the streams administrator: max age %v, want %v", got, want)
	}
	if err := bus.EnsureStreams(ctx, transfers.js); err != nil {
		t.Fatalf("a service after the change was applied: %v", err)
	}
}

// TestKubernetesAuthConfIsTheTable: the committed include of the production nats.conf is the
// table rendered with each key from the server's environment.
func TestKubernetesAuthConfIsTheTable(t *testing.T) {
	t.Parallel()
	got, err := os.ReadFile(filepath.Join("..", "..", "..", "deploy", "kubernetes", "base", "nats", "auth.conf"))
	if err != nil {
		t.Fatal(err)
	}
	want := bus.AuthConf(bus.Deployed(), func(name string) string { return "$" + bus.NKeyVar(name) })
	if string(got) != want {
		t.Errorf("deploy/kubernetes/base/nats/auth.conf differs from the table: regenerate it with\n"+
			"  go run ./services/platform/bus/cmd/natsauth conf > deploy/kubernetes/base/nats/auth.conf\nwant:\n%s", want)
	}
}
