package bus

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
)

// The NATS permission table: who may publish and subscribe on what. It is the one place the
// bus's access rules are written; from it come the server's authorization (AuthConf) for the
// tests (natstest), the dev stack and Kubernetes (deploy/kubernetes/base/nats/auth.conf, which
// a test keeps equal to it), and which streams a process creates (EnsureStreams). See
// docs/security-nats.md.

// Identities that are not services.
const (
	// IdentityObserver reads every stream and subject but publishes nothing and creates no
	// stream: the dev stack's tools (the benchmark's tap, the stack tests). Never in production.
	IdentityObserver = "observer"
	// IdentityAdmin may do anything: tests that publish as no service would (a malformed
	// message, a fixture). Only natstest has it.
	IdentityAdmin = "admin"
	// IdentityStreams administers the streams: the only identity that may change a stream's
	// configuration once the stream exists (natsauth streams, run by a release that changes
	// StreamConfigs; the dev stack before it starts the services). It publishes and reads
	// nothing. No service has it: a service's key, stolen, cannot purge, shrink or seal a stream
	// that the other services publish to.
	IdentityStreams = "streams"
)

// Durable is a durable consumer that one identity owns: it alone may create, read and
// acknowledge it, and only with this filter.
type Durable struct {
	Stream string
	Name   string
	Filter string
}

// Read is a stream an identity reads with ordered (ephemeral, unacknowledged) consumers, and
// the filter subjects it uses.
type Read struct {
	Stream  string
	Filters []string
}

// Identity is one NATS user: a service (all its replicas share it) or a tool.
type Identity struct {
	Name string
	// Publishes are the stream subjects the identity writes to (its outbox's subjects). It may
	// also create and inspect the streams they land in (CreatableStreams), and no other; it may
	// not change one that exists (AdministersStreams).
	Publishes []string
	// Durables are the durable consumers it owns.
	Durables []Durable
	// Reads are the streams it reads through ordered consumers.
	Reads []Read
	// KeyValues are the KV buckets it owns (creates, reads and writes).
	KeyValues []string
	// WatchesKeyValues are KV buckets it reads and watches (an ordered push consumer per watch,
	// filtered on the bucket's keys) but never writes, creates or deletes.
	WatchesKeyValues []string
	// ReadAll grants the observer's read-only view: the state and messages of every stream,
	// ordered consumers on the streams that are not work queues, plain subscriptions on
	// thumela.>.
	ReadAll bool
	// AdministersStreams grants creating, changing and inspecting every stream of
	// StreamConfigs (IdentityStreams), and nothing else.
	AdministersStreams bool
	// Unrestricted gives the identity no permissions block at all (IdentityAdmin).
	Unrestricted bool
}

// subjectsOf returns thumela.<domain>.>.
func subjectsOf(domain string) string { return Root + "." + domain + ".>" }

// The consumer names owned by the services. The services define them where they consume; a
// mismatch shows as a permission violation in that service's log (and in its tests against
// natstest, which enforces this table).
const (
	// PaymentMethodChangedFilter matches paymentmethods' PaymentMethodChanged events of every
	// user; transfers reads them (an ordered consumer per replica) to drop its cached cards.
	PaymentMethodChangedFilter         = Root + "." + DomainPaymentMethods + ".*.changed"
	durablePaymentMethodsTransferUsage = "paymentmethods-transfer-usage"
	durableNotifications               = "notifications"
	// DurableTransfersReferrals is transfers' consumer of identity's UserVerified events (the
	// referral code typed at sign-up pays the friend's welcome credit).
	DurableTransfersReferrals = "transfers-referrals"
	// DurableTransfersSMSFailures is transfers' consumer of notifications' failed deliveries: a
	// voucher SMS that failed for good is told to the sender by e-mail.
	DurableTransfersSMSFailures = "transfers-sms-failures"
	// DeliveryFailedFilter matches the DeliveryChanged events notifications announces a failure
	// with (besides .changed), of every user: transfers reads failures without every change.
	DeliveryFailedFilter = Root + "." + DomainDeliveries + ".*.failed"
	// DurableIdentityProfileNames is identity's consumer of profiles' ProfileUpdated events: a
	// user's names follow their profile into their access tokens.
	DurableIdentityProfileNames = "identity-profile-names"
	// ProfileUpdatedFilter matches profiles' ProfileUpdated events of every user.
	ProfileUpdatedFilter = Root + "." + DomainProfiles + ".*.updated"
	// DurableTransfersRenames is transfers' consumer of identity's UserRenamed events: a
	// scheduled send's occurrences name the sender as their profile now does.
	DurableTransfersRenames = "transfers-renames"
	// UserRenamedFilter matches identity's UserRenamed events of every user.
	UserRenamedFilter = Root + "." + DomainIdentity + ".*.renamed"
	// UserVerifiedFilter matches identity's UserVerified events of every user.
	UserVerifiedFilter   = Root + "." + DomainIdentity + ".*.verified"
	transferStatusFilter = Root + "." + DomainTransfers + ".*.status"
)

// BucketRateLimits is the BFF's KV bucket of rate-limit counters.
const BucketRateLimits = "THUMELA_RATELIMITS"

// BucketFeeSchedule is the fees service's KV bucket of the fee schedule (fees.v1.FeeSchedule
// under the key "current"): fees writes it, transfers watches it and prices transfers from it.
const BucketFeeSchedule = "THUMELA_FEE_SCHEDULE"

// FeeScheduleBucket is the configuration of BucketFeeSchedule, which fees creates (or updates)
// at start: one small value, kept on disk so a NATS restart does not send every transfer back
// to asking fees for a quote, with a little history for whoever looks into a change.
func FeeScheduleBucket(replicas int) jetstream.KeyValueConfig {
	return jetstream.KeyValueConfig{
		Bucket:       BucketFeeSchedule,
		Description:  "fees: the current fee schedule (fees.v1.FeeSchedule under \"current\")",
		History:      5,
		Storage:      jetstream.FileStorage,
		Replicas:     max(replicas, 1),
		MaxValueSize: 64 << 10,
	}
}

// identities is the table, in the order of stack.Services, the BFF last. cashout (the ATM
// gateway) has no row: it does not connect to NATS at all.
var identities = []Identity{
	{
		Name: "identity",
		// Its events (signed up, verified, sessions revoked) and the e-mails it asks for.
		Publishes: []string{subjectsOf(DomainIdentity), NotificationsFrom("identity")},
		// The names users save in their profiles, which their access tokens then carry.
		Durables: []Durable{{Stream: StreamEvents, Name: DurableIdentityProfileNames, Filter: ProfileUpdatedFilter}},
	},
	{
		Name:      "profiles",
		Publishes: []string{subjectsOf(DomainProfiles)},
	},
	{
		Name:      "paymentmethods",
		Publishes: []string{subjectsOf(DomainPaymentMethods)},
		// Which cards were used, from the transfers' status events.
		Durables: []Durable{{Stream: StreamEvents, Name: durablePaymentMethodsTransferUsage, Filter: transferStatusFilter}},
	},
	{
		Name: "fees",
		// Publishes no event and reads none (the first-transfer waiver is transfers' to decide).
		// It writes the fee schedule that transfers prices with.
		KeyValues: []string{BucketFeeSchedule},
	},
	{
		Name: "transfers",
		// Its status, voucher, recipients, schedules and credit events, and the SMS and e-mails it
		// asks for.
		Publishes: []string{subjectsOf(DomainTransfers), NotificationsFrom("transfers")},
		// New users' verification, for the referral credit; the voucher SMS's deliveries, to tell
		// the sender of one that failed; users' new names, for their scheduled sends.
		Durables: []Durable{
			{Stream: StreamEvents, Name: DurableTransfersReferrals, Filter: UserVerifiedFilter},
			{Stream: StreamEvents, Name: DurableTransfersSMSFailures, Filter: DeliveryFailedFilter},
			{Stream: StreamEvents, Name: DurableTransfersRenames, Filter: UserRenamedFilter},
		},
		// Every replica reads every payment-method change (ordered consumers), to drop the cards
		// it cached, and watches the fee schedule it prices transfers with.
		Reads:            []Read{{Stream: StreamEvents, Filters: []string{PaymentMethodChangedFilter}}},
		WatchesKeyValues: []string{BucketFeeSchedule},
	},
	{
		Name: "notifications",
		// Delivery events, the dead letters, and support's copies of the contact forms (sent
		// through its own work queue).
		Publishes: []string{subjectsOf(DomainDeliveries), subjectsOf(DomainNotificationsDead), NotificationsFrom("notifications")},
		Durables:  []Durable{{Stream: StreamNotifications, Name: durableNotifications, Filter: subjectsOf(DomainNotifications)}},
	},
	{
		Name:      "bff",
		Publishes: []string{subjectsOf(DomainAnalytics)},
		// The users' live events, the session revocations that end their streams, and the
		// renames after which their cached tokens carry old names.
		Reads: []Read{{Stream: StreamEvents, Filters: []string{
			subjectsOf(DomainTransfers), subjectsOf(DomainProfiles), subjectsOf(DomainPaymentMethods), subjectsOf(DomainDeliveries),
			Root + "." + DomainIdentity + ".*.sessions_revoked", UserRenamedFilter,
		}}},
		KeyValues: []string{BucketRateLimits},
	},
}

var (
	observer     = Identity{Name: IdentityObserver, ReadAll: true}
	streamsAdmin = Identity{Name: IdentityStreams, AdministersStreams: true}
)

// Services returns the services' identities (the production table), in start order, the BFF
// last.
func Services() []Identity { return slices.Clone(identities) }

// Deployed returns the identities of a deployment: the services (Services) and the streams
// administrator. The production auth.conf and the NKeys of an environment are made for these.
func Deployed() []Identity { return append(Services(), StreamsAdmin()) }

// Observer returns the read-only identity of the dev stack's tools.
func Observer() Identity { return observer }

// StreamsAdmin returns the identity that administers the streams (IdentityStreams).
func StreamsAdmin() Identity { return streamsAdmin }

// Admin returns the unrestricted test identity.
func Admin() Identity { return Identity{Name: IdentityAdmin, Unrestricted: true} }

// Lookup returns the identity named name: a service, the observer or the admin.
func Lookup(name string) (Identity, bool) {
	for _, id := range append(Services(), Observer(), StreamsAdmin(), Admin()) {
		if id.Name == name {
			return id, true
		}
	}
	return Identity{}, false
}

// InboxPrefix is where the identity's replies arrive (_INBOX.<name>): bus.Connect sets it as
// the connection's inbox prefix and the identity may subscribe only below it, so that no
// other process can read the answers JetStream sends it.
func InboxPrefix(name string) string { return "_INBOX." + name }

// CreatableStreams are the streams the identity may create: those its subjects land in (KV
// buckets aside), every stream for the streams administrator and the admin. Creating a stream
// that exists changes nothing: the server refuses a configuration that differs.
func (id Identity) CreatableStreams() []string {
	var out []string
	for _, cfg := range StreamConfigs() {
		if id.Unrestricted || id.AdministersStreams ||
			slices.ContainsFunc(cfg.Subjects, func(s string) bool { return slices.ContainsFunc(id.Publishes, within(s)) }) {
			out = append(out, cfg.Name)
		}
	}
	return out
}

// within reports, for a stream's subject, whether a publish subject lands in it: the same
// subject, or one below a stream subject that ends in ">" (a publisher's own share of the
// notification requests lands in the notifications work queue).
func within(streamSubject string) func(string) bool {
	prefix, wide := strings.CutSuffix(streamSubject, ">")
	return func(publish string) bool {
		return publish == streamSubject || (wide && strings.HasPrefix(publish, prefix))
	}
}

// UpdatesStreams reports whether the identity may change an existing stream's configuration.
func (id Identity) UpdatesStreams() bool { return id.Unrestricted || id.AdministersStreams }

// Permissions are one identity's allowed and denied subjects.
type Permissions struct {
	PublishAllow, PublishDeny, SubscribeAllow []string
}

const api = "$JS.API."

// Permissions derives the subjects the identity may use from its row of the table.
func (id Identity) Permissions() Permissions {
	var p Permissions
	pub := func(s ...string) { p.PublishAllow = append(p.PublishAllow, s...) }
	p.SubscribeAllow = []string{InboxPrefix(id.Name) + ".>"}
	info := map[string]bool{}
	streamInfo := func(stream string) {
		if !info[stream] {
			info[stream] = true
			pub(api + "STREAM.INFO." + stream)
		}
	}

	pub(id.Publishes...)
	for _, s := range id.CreatableStreams() {
		pub(api + "STREAM.CREATE." + s)
		if id.AdministersStreams {
			pub(api + "STREAM.UPDATE." + s)
		}
		streamInfo(s)
	}
	for _, d := range id.Durables {
		streamInfo(d.Stream)
		c := d.Stream + "." + d.Name
		// outbox.Consume creates its consumer with the filter in the subject, which pins the
		// filter: the server refuses a request whose configuration says otherwise.
		pub(api+"CONSUMER.CREATE."+c+"."+d.Filter, api+"CONSUMER.INFO."+c, api+"CONSUMER.MSG.NEXT."+c, "$JS.ACK."+c+".>")
	}
	readers := id.Reads
	if id.ReadAll {
		readers = nil
		// Every stream's state and messages, the KV buckets' too (a leak scan reads them all).
		pub(api+"INFO", api+"STREAM.NAMES", api+"STREAM.LIST", api+"STREAM.INFO.*", api+"STREAM.MSG.GET.*", api+"DIRECT.GET.>")
		for _, cfg := range StreamConfigs() {
			info[cfg.Name] = true
			// A consumer on a work queue would take its messages from the service it is for.
			if cfg.Retention != jetstream.WorkQueuePolicy {
				readers = append(readers, Read{Stream: cfg.Name, Filters: []string{">"}})
			}
		}
		p.SubscribeAllow = append(p.SubscribeAllow, Root+".>")
	}
	for _, r := range readers {
		streamInfo(r.Stream)
		// Ordered consumers have generated names (one token). With several filters the subject
		// cannot carry them, so the name-only form is allowed too; the other identities'
		// durables are denied below.
		pub(api+"CONSUMER.CREATE."+r.Stream+".*", api+"CONSUMER.INFO."+r.Stream+".*",
			api+"CONSUMER.MSG.NEXT."+r.Stream+".*", api+"CONSUMER.DELETE."+r.Stream+".*")
		for _, f := range r.Filters {
			pub(api + "CONSUMER.CREATE." + r.Stream + ".*." + f)
		}
		for _, other := range identities {
			if other.Name == id.Name {
				continue
			}
			for _, d := range other.Durables {
				if d.Stream != r.Stream {
					continue
				}
				c := d.Stream + "." + d.Name
				p.PublishDeny = append(p.PublishDeny, api+"CONSUMER.*."+c, api+"CONSUMER.*."+c+".>", api+"CONSUMER.MSG.NEXT."+c)
			}
		}
	}
	for _, b := range id.KeyValues {
		s := "KV_" + b
		// CreateOrUpdateKeyValue reads the account's limits first.
		pub(api+"INFO", api+"STREAM.CREATE."+s, api+"STREAM.UPDATE."+s)
		streamInfo(s)
		pub("$KV."+b+".>", api+"DIRECT.GET."+s, api+"DIRECT.GET."+s+".>", api+"STREAM.MSG.GET."+s)
	}
	for _, b := range id.WatchesKeyValues {
		s := "KV_" + b
		// KeyValue() reads the stream's info; Watch creates an ordered push consumer with the
		// key in the subject (a generated name), answers its flow control and deletes it when
		// it resets; Get reads one key directly.
		streamInfo(s)
		pub(api+"CONSUMER.CREATE."+s+".*.$KV."+b+".>", api+"CONSUMER.INFO."+s+".*", api+"CONSUMER.DELETE."+s+".*",
			"$JS.FC."+s+".>", api+"DIRECT.GET."+s, api+"DIRECT.GET."+s+".>", api+"STREAM.MSG.GET."+s)
	}
	p.PublishAllow = dedupe(p.PublishAllow)
	p.PublishDeny = dedupe(p.PublishDeny)
	return p
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// Account is the NATS account every Thumela identity belongs to, with JetStream enabled.
const Account = "THUMELA"

// NKeyVar is the environment variable the production nats.conf reads an identity's public
// NKey from: NATS_NKEY_<NAME>.
func NKeyVar(name string) string { return "NATS_NKEY_" + strings.ToUpper(name) }

// AuthConf renders the nats-server configuration of the THUMELA account: one user per
// identity, authenticated by its NKey (key(name): a public key "U…", or "$"+NKeyVar(name)
// for the server to take it from its environment), with its permissions. nats-server reads
// it as a configuration file or an include.
func AuthConf(ids []Identity, key func(name string) string) string {
	var b strings.Builder
	b.WriteString("# Generated from services/platform/bus/permissions.go (go run ./services/platform/bus/cmd/natsauth conf).\n")
	b.WriteString("# Do not edit: change the table and regenerate; a test keeps this file equal to it.\n")
	b.WriteString("accounts {\n")
	fmt.Fprintf(&b, "  %s {\n", Account)
	b.WriteString("    jetstream: enabled\n")
	b.WriteString("    users: [\n")
	for _, id := range ids {
		fmt.Fprintf(&b, "      # %s\n", id.Name)
		fmt.Fprintf(&b, "      {\n        nkey: %s\n", key(id.Name))
		if !id.Unrestricted {
			p := id.Permissions()
			b.WriteString("        permissions: {\n")
			b.WriteString("          publish: {\n")
			switch {
			case len(p.PublishAllow) == 0:
				// An empty allow list would mean no restriction: deny everything instead.
				writeList(&b, "deny", []string{">"})
			default:
				writeList(&b, "allow", p.PublishAllow)
				if len(p.PublishDeny) > 0 {
					writeList(&b, "deny", p.PublishDeny)
				}
			}
			b.WriteString("          }\n")
			b.WriteString("          subscribe: {\n")
			writeList(&b, "allow", p.SubscribeAllow)
			b.WriteString("          }\n")
			b.WriteString("        }\n")
		}
		b.WriteString("      }\n")
	}
	b.WriteString("    ]\n  }\n}\n")
	return b.String()
}

func writeList(b *strings.Builder, name string, subjects []string) {
	fmt.Fprintf(b, "            %s: [\n", name)
	for _, s := range subjects {
		fmt.Fprintf(b, "              %q\n", s)
	}
	b.WriteString("            ]\n")
}
