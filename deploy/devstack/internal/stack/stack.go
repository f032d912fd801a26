// Package stack runs the whole of Thumela on one machine for development and for the browser
// tests: PostgreSQL (the one at DATABASE_URL, or a private cluster under the data folder), NATS
// (embedded unless NATS_URL is set), the services and the BFF, each a child process whose
// log lines carry its name, and, in this process, the stand-ins for the outside world that
// notifications talks to (package devsinks: an SMTP server, the SMS provider's API, and the dev
// tools behind /dev/outbox, and the ATM at /dev/atm, package devatm, which withdraws vouchers
// through the cash-out gateway over ISO 8583). Any child can run as several replicas
// (Config.Replicas), which is how the scale-out test runs two BFFs and two transfers instances
// on one machine.
package stack

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/deploy/devstack/internal/devatm"
	"github.com/thumela/thumela/deploy/devstack/internal/devsinks"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/platform/bus"
	"github.com/thumela/thumela/services/platform/seal"
)

// Services are started in this order; identity first because the others verify access tokens
// with its keys (they fetch them lazily, so the order is a courtesy, not a requirement), and
// cashout, the ATM networks' gateway, after transfers and identity, which it calls.
var Services = []string{"identity", "profiles", "paymentmethods", "fees", "transfers", "notifications", "cashout"}

// Config says where things are and how the stack is reached.
type Config struct {
	// Root is the repository's root; binaries are in Root/bin, the web client in Root/web/dist.
	Root string
	// DataDir keeps the private PostgreSQL cluster, NATS's store, the dev secrets and the SMTP
	// sink's certificate.
	DataDir string
	// HTTPAddr is where the BFF listens; port 0 picks a free one, which THUMELA_READY reports.
	HTTPAddr string
	// DatabaseURL, when set, is used instead of a private cluster.
	DatabaseURL string
	// NatsURL, when set, is used instead of an embedded server.
	NatsURL string
	// Ephemeral makes a throw-away database (dropped at exit) and a throw-away NATS store:
	// the browser tests' mode.
	Ephemeral bool
	// PostgresPort is the private cluster's port.
	PostgresPort int
	Out          io.Writer
	Logger       *slog.Logger
	// ExtraEnv ("NAME=value") is added to every child's environment after the stack's own
	// variables, so it can override them (the benchmark's tuning).
	ExtraEnv []string
	// NATSMaxConsumers, when not zero, is the embedded NATS's limit of consumers per stream
	// (-1: none); zero keeps JetStream's default of 1,000. Every open WatchEvents stream is one
	// consumer of the events stream, so the benchmark's thousand streams need more.
	NATSMaxConsumers int
	// Replicas is how many instances to run of a service (a name in Services) or of the BFF
	// ("bff"); absent or below 1 means one. Each replica of a service listens on its own gRPC
	// port and its callers get all of them (<SERVICE>_ADDR=host:port,host:port, which
	// grpcserver.Dial balances round-robin); each BFF replica has its own HTTP port, the first
	// HTTPAddr. A replicated process is named <name>-<n> (transfers-1, transfers-2) in the logs
	// and in Ready.PIDs; a single one keeps its plain name.
	Replicas map[string]int
	// TolerateExit keeps the stack running when a child ends, for the tests that kill one on
	// purpose (the scale-out test). Otherwise a dead child stops the whole stack.
	TolerateExit bool
	// Ready, when set, is called once every BFF answers its health check, with where the stack
	// is and which processes it runs. It must not block: Run waits for it to return.
	Ready func(Ready)
}

// Ready describes a running stack to Config.Ready.
type Ready struct {
	// BaseURL is the BFF's address, e.g. http://127.0.0.1:8080: the first one's when there are
	// several.
	BaseURL string
	// BaseURLs is every BFF replica's address, BaseURL first.
	BaseURLs []string
	// DatabaseURL is the database the services use.
	DatabaseURL string
	// NatsURL is the NATS server the services use.
	NatsURL string
	// NatsObserverSeedFile is the NKey seed of the read-only observer identity (bus.Observer),
	// for the tools and tests that read the streams (ConnectNATS); empty when NATS_URL named a
	// server of the caller's, which the stack gives no credentials.
	NatsObserverSeedFile string
	// PIDs are the children's process ids by name (the services, the BFF and, when the stack
	// runs its own cluster, postgres; replicas as <name>-<n>). A test may signal one; with
	// Config.TolerateExit the others keep running.
	PIDs map[string]int
	// DataDir is Config.DataDir.
	DataDir string
	// DevToolsURL is the dev tools' own base (http://127.0.0.1:<port>), which serves /dev/outbox
	// and /dev/sms/failures; every BFF proxies /dev/ there too.
	DevToolsURL string
	// SMTPAddr is the SMTP sink's host:port; SMTPCAFile its certificate (PEM).
	SMTPAddr   string
	SMTPCAFile string
	// BulkSMSURL is the SMS provider stand-in's API base (http://127.0.0.1:<port>/v1).
	BulkSMSURL string
	// ISOAddr is the cash-out gateway's ISO 8583 listener (the first replica's), which the dev
	// ATM (/dev/atm) dials; ISOAddrs is every replica's. ZonePINKey is the zone PIN key the
	// ATM and the gateway share ("<id>:<hex>:<acquirer ids>", as CASHOUT_ZONE_PIN_KEYS lists
	// it), ZoneMACKey the zone MAC key of the same id ("<id>:<hex>"): secrets like every dev
	// secret of the stack.
	ISOAddr    string
	ISOAddrs   []string
	ZonePINKey string
	ZoneMACKey string
	// WebhookURL is where the stand-in posts its delivery reports (the first notifications
	// replica's webhook, token included: a secret, like every dev secret of the stack).
	WebhookURL string
	// Faults stops and restarts children and the embedded NATS, for the fault tests; nil
	// unless Config.TolerateExit.
	Faults *Faults
}

// replicaNames names the n instances of name: the plain name for one, name-1 … name-n for more.
func replicaNames(name string, n int) []string {
	if n <= 1 {
		return []string{name}
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", name, i+1)
	}
	return names
}

// Run brings the stack up, blocks until ctx ends or a child dies (unless cfg.TolerateExit),
// then stops everything.
func Run(ctx context.Context, cfg Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	log := cfg.Logger
	var outMu sync.Mutex
	names := map[string][]string{}
	width := len("postgres")
	for _, name := range append(slices.Clone(Services), "bff") {
		names[name] = replicaNames(name, cfg.Replicas[name])
		for _, n := range names[name] {
			width = max(width, len(n))
		}
	}
	var procs []*process
	// faults restarts children for the fault tests: it replaces a restarted child in procs.
	faults := &Faults{logger: log, out: cfg.Out, outMu: &outMu, width: width, procs: &procs}
	// stop ends the children in reverse start order; with keepPostgres the private cluster
	// stays up (the throw-away database is dropped between the two).
	stop := func(keepPostgres bool) {
		stopCtx, stopCancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer stopCancel()
		procs := faults.close()
		for i := len(procs) - 1; i >= 0; i-- {
			sig := syscall.SIGTERM
			if procs[i].name == "postgres" {
				if keepPostgres {
					continue
				}
				sig = syscall.SIGINT // PostgreSQL's fast shutdown
			}
			procs[i].stop(stopCtx, sig)
		}
	}
	defer stop(false)

	if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
		return err
	}

	// PostgreSQL.
	databaseURL := cfg.DatabaseURL
	if databaseURL == "" {
		pg := &PrivatePostgres{Dir: filepath.Join(cfg.DataDir, "postgres"), Port: cfg.PostgresPort, Logger: log}
		if err := pg.Init(ctx); err != nil {
			return err
		}
		cmd, err := pg.Command()
		if err != nil {
			return err
		}
		p, err := startProcess("postgres", cmd, cfg.Out, &outMu, width)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		databaseURL = pg.URL("thumela")
		if err := WaitForPostgres(ctx, pg.URL("postgres"), 30*time.Second); err != nil {
			return err
		}
	}
	if cfg.Ephemeral {
		var err error
		if databaseURL, err = withDatabase(databaseURL, "thumela_e2e_"+randomSuffix()); err != nil {
			return err
		}
		defer func() {
			dropCtx, dropCancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer dropCancel()
			stop(true) // the services must let go of the database first; PostgreSQL must not
			if err := dropDatabase(dropCtx, databaseURL); err != nil {
				log.Warn("could not drop the throw-away database", "err", err)
			}
		}()
	}
	if err := ensureDatabase(ctx, databaseURL); err != nil {
		return err
	}

	// NATS, with the production permission table: each child gets its own NKey, made for this
	// run (docs/security-nats.md).
	natsURL := cfg.NatsURL
	var natsKeys *bus.KeySet
	if natsURL == "" {
		keys, cleanup, err := natsCredentials(cfg.DataDir)
		if err != nil {
			return err
		}
		defer cleanup()
		natsKeys = &keys
		storeDir := filepath.Join(cfg.DataDir, "nats")
		if cfg.Ephemeral {
			var err error
			if storeDir, err = os.MkdirTemp("", "thumela-nats-"); err != nil {
				return err
			}
			defer os.RemoveAll(storeDir) //nolint:errcheck // a temporary folder; what is left the system's temp cleaning takes
		}
		ns, err := startNATS(storeDir, cfg.NATSMaxConsumers, keys, server.RANDOM_PORT)
		if err != nil {
			return err
		}
		faults.nats, faults.natsStore, faults.natsMaxCons, faults.natsKeys = ns, storeDir, cfg.NATSMaxConsumers, keys
		faults.natsPort = ns.Addr().(*net.TCPAddr).Port
		defer faults.shutdownNATS()
		natsURL = ns.ClientURL()
		log.Info("embedded NATS with JetStream", "url", natsURL)
		// As a release would (natsauth streams): the streams as this checkout configures them,
		// before any service starts, since the services may only create the missing ones.
		if err := bus.AdministerStreams(ctx, natsURL, bus.Credentials{NKeySeedFile: keys.SeedFile(bus.IdentityStreams)}, log); err != nil {
			return fmt.Errorf("NATS streams: %w", err)
		}
	}

	secrets, err := loadDevSecrets(filepath.Join(cfg.DataDir, DevSecretsFile))
	if err != nil {
		return err
	}

	// Services, each replica on a free loopback port.
	env := append(os.Environ(),
		"DATABASE_URL="+databaseURL,
		"NATS_URL="+natsURL,
		"THUMELA_ENV=development",
	)
	for _, k := range slices.Sorted(maps.Keys(secrets)) {
		if secretOwner[k] == "" {
			env = append(env, k+"="+secrets[k])
		}
	}
	ports := len(names["bff"]) - 1 // the first BFF is at cfg.HTTPAddr
	for _, svc := range Services {
		ports += len(names[svc])
	}
	ports += len(names["notifications"]) // each replica's webhook listener
	ports += len(names["cashout"])       // each replica's ISO 8583 listener
	// Every socket a child serves on is opened here and handed down (platform/listen), the first
	// BFF's at the address asked for: one in use fails the start before anything runs, and
	// none can be taken by another process between being picked and being served on.
	held, err := listenOn(cfg.HTTPAddr)
	if err != nil {
		return err
	}
	if _, port, _ := net.SplitHostPort(cfg.HTTPAddr); port == "0" {
		first := held[cfg.HTTPAddr]
		// Port 0 asks for any free port (the browser tests' stacks): the BFF serves, and the
		// stack reports, the one the kernel gave.
		delete(held, cfg.HTTPAddr)
		cfg.HTTPAddr = first.Addr().String()
		held[cfg.HTTPAddr] = first
	}
	free, err := listeners(ports)
	if err != nil {
		return err
	}
	defer func() { // what no child took (a start that failed part-way)
		for _, l := range held {
			_ = l.Close()
		}
	}()
	take := func() string {
		l := free[0]
		free = free[1:]
		held[l.Addr().String()] = l
		return l.Addr().String()
	}
	// handOver gives addrs' sockets to the child that serves on them.
	handOver := func(addrs ...string) map[string]*net.TCPListener {
		lns := make(map[string]*net.TCPListener, len(addrs))
		for _, a := range addrs {
			lns[a] = held[a]
			delete(held, a)
		}
		return lns
	}
	// The BFFs' addresses are known before the services start: identity's WebAuthn relying
	// party must list every origin the pages are served from.
	bffAddrs := []string{cfg.HTTPAddr}
	for range names["bff"][1:] {
		bffAddrs = append(bffAddrs, take())
	}
	addrs := map[string][]string{}
	for _, svc := range Services {
		for range names[svc] {
			addrs[svc] = append(addrs[svc], take())
		}
		env = append(env, strings.ToUpper(svc)+"_ADDR="+strings.Join(addrs[svc], ","))
	}
	// The on-call tools (make reconcile) find the running stack's services here.
	if err := writeDevAddrs(filepath.Join(cfg.DataDir, DevAddrsFile), addrs); err != nil {
		return err
	}
	webhookAddrs := make([]string, len(names["notifications"]))
	for i := range webhookAddrs {
		webhookAddrs[i] = take()
	}
	isoAddrs := make([]string, len(names["cashout"]))
	for i := range isoAddrs {
		isoAddrs[i] = take()
	}
	// The dev ATM enciphers PINs under the gateway's current zone PIN key and MACs every
	// message under the zone MAC key of the same id, as a switch that shares the keys with it
	// would, and dials the first replica (an ATM has one switch).
	zones, err := devZones(secrets)
	if err != nil {
		return err
	}
	atm := devatm.New(devatm.Config{ISOAddr: isoAddrs[0], Key: zones.Current().PIN, MACKey: zones.Current().MAC, Logger: log.With("component", "devatm")})

	// The outside world notifications talks to, before the services: the SMTP sink, the SMS
	// provider's stand-in (reporting to the first replica's webhook, as a provider account has
	// one registered URL) and the dev tools that list what they received.
	webhookURL := "http://" + webhookAddrs[0] + "/webhooks/bulksms/" + secrets["NOTIFICATIONS_WEBHOOK_TOKEN"]
	sinks, err := devsinks.Start(devsinks.Config{
		DataDir:        cfg.DataDir,
		SMTPUsername:   secrets["NOTIFICATIONS_SMTP_USERNAME"],
		SMTPPassword:   secrets["NOTIFICATIONS_SMTP_PASSWORD"],
		BulkSMSTokenID: secrets["NOTIFICATIONS_BULKSMS_TOKEN_ID"], BulkSMSTokenSecret: secrets["NOTIFICATIONS_BULKSMS_TOKEN_SECRET"],
		WebhookURL: webhookURL,
		Tools:      []devsinks.Tool{{Path: devatm.Path, Title: "Dev ATM: withdraw a voucher", Handler: atm}},
		Logger:     log.With("component", "devsinks"),
	})
	if err != nil {
		return err
	}
	defer func() {
		// After the children (notifications must not lose its SMTP server mid-message), and
		// before PostgreSQL, which the throw-away database's drop still needs.
		stop(true)
		closeCtx, closeCancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer closeCancel()
		_ = sinks.Close(closeCtx)
	}()
	log.Info("dev stand-ins", "smtp", sinks.SMTPAddr(), "bulksms", sinks.BulkSMSURL(), "dev_tools", sinks.DevToolsURL())
	notificationsEnv := []string{
		"NOTIFICATIONS_SMTP_ADDR=" + sinks.SMTPAddr(),
		"NOTIFICATIONS_SMTP_TLS=starttls",
		"NOTIFICATIONS_SMTP_CA_FILE=" + sinks.CAFile,
		"NOTIFICATIONS_BULKSMS_URL=" + sinks.BulkSMSURL(),
	}
	cashoutEnv, identityEnv := []string{}, []string{}
	for _, k := range slices.Sorted(maps.Keys(secretOwner)) {
		switch secretOwner[k] {
		case "notifications":
			notificationsEnv = append(notificationsEnv, k+"="+secrets[k])
		case "cashout":
			cashoutEnv = append(cashoutEnv, k+"="+secrets[k])
		case "identity":
			identityEnv = append(identityEnv, k+"="+secrets[k])
		}
	}
	start := func(name, binary string, serves []string, extraEnv ...string) error {
		cmd := exec.Command(filepath.Join(cfg.Root, "bin", binary))
		cmd.Env = append(append(append([]string{}, env...), extraEnv...), cfg.ExtraEnv...)
		cmd.Dir = cfg.Root
		p, err := startServing(name, cmd, handOver(serves...), cfg.Out, &outMu, width)
		if err != nil {
			return err
		}
		procs = append(procs, p)
		return nil
	}
	for _, svc := range Services {
		for i, name := range names[svc] {
			extra := append([]string{strings.ToUpper(svc) + "_GRPC_ADDR=" + addrs[svc][i]}, natsEnv(natsKeys, svc)...)
			serves := []string{addrs[svc][i]}
			switch svc {
			case "notifications":
				extra = append(append(extra, notificationsEnv...), "NOTIFICATIONS_WEBHOOK_ADDR="+webhookAddrs[i])
				serves = append(serves, webhookAddrs[i])
			case "cashout":
				extra = append(append(extra, cashoutEnv...), "CASHOUT_ISO_ADDR="+isoAddrs[i])
				serves = append(serves, isoAddrs[i])
			case "identity":
				extra = append(append(extra, identityEnv...), webauthnEnv(bffAddrs)...)
			}
			if err := start(name, svc, serves, extra...); err != nil {
				return err
			}
		}
	}
	var httpAddrs, bases []string
	for i, name := range names["bff"] {
		httpAddr := bffAddrs[i]
		httpAddrs = append(httpAddrs, httpAddr)
		bases = append(bases, "http://"+httpAddr)
		if err := start(name, "bff", []string{httpAddr}, append(natsEnv(natsKeys, "bff"),
			"BFF_HTTP_ADDR="+httpAddr,
			"BFF_WEB_DIR="+filepath.Join(cfg.Root, "web", "dist"),
			"BFF_DEV_MODE=true",
			"BFF_DEV_TOOLS_URL="+sinks.DevToolsURL(),
		)...); err != nil {
			return err
		}
	}

	// Ready means usable: every service replica serving, as its gRPC health says (a service
	// serves only after its migrations and setup; its socket accepts connections from the
	// start, since the stack opened it), and every BFF answering. The listeners a replica
	// opens beside its gRPC server, the gateway's ISO port and notifications' webhook, need no
	// wait: their sockets are open, and a connection made early waits in the socket's queue
	// until the replica accepts it.
	for _, svc := range Services {
		for i, addr := range addrs[svc] {
			if err := waitServing(ctx, names[svc][i], addr, 60*time.Second, procs); err != nil {
				return err
			}
		}
	}
	for _, base := range bases {
		if err := waitHTTP(ctx, base+"/healthz", 60*time.Second, procs); err != nil {
			return err
		}
	}
	outMu.Lock()
	// The dev tools answer through the BFF, so the outbox keeps its address on the site.
	fmt.Fprintf(cfg.Out, "\n  Thumela is running at %s\n  Dev outbox (e-mails and SMS): %s/dev/outbox\n  Dev ATM (withdraw a voucher): %s%s\n",
		displayURL(cfg.HTTPAddr), displayURL(cfg.HTTPAddr), displayURL(cfg.HTTPAddr), devatm.Path)
	for _, a := range httpAddrs[1:] {
		fmt.Fprintf(cfg.Out, "  Another BFF replica: %s\n", displayURL(a))
	}
	fmt.Fprintf(cfg.Out, "  Stop with Ctrl-C.\n\n")
	// The browser tests' harness reads the first BFF's address from this line.
	fmt.Fprintf(cfg.Out, "THUMELA_READY %s\n", bases[0])
	outMu.Unlock()
	if cfg.Ready != nil {
		pids := make(map[string]int, len(procs))
		for _, p := range procs {
			pids[p.name] = p.cmd.Process.Pid
		}
		observerSeed := ""
		if natsKeys != nil {
			observerSeed = natsKeys.SeedFile(bus.IdentityObserver)
		}
		var readyFaults *Faults
		if cfg.TolerateExit {
			readyFaults = faults
		}
		cfg.Ready(Ready{
			Faults:  readyFaults,
			BaseURL: bases[0], BaseURLs: bases, DatabaseURL: databaseURL, NatsURL: natsURL, NatsObserverSeedFile: observerSeed, PIDs: pids,
			DataDir: cfg.DataDir, DevToolsURL: sinks.DevToolsURL(), SMTPAddr: sinks.SMTPAddr(), SMTPCAFile: sinks.CAFile,
			BulkSMSURL: sinks.BulkSMSURL(), WebhookURL: webhookURL,
			ISOAddr: isoAddrs[0], ISOAddrs: isoAddrs, ZonePINKey: firstEntry(secrets["CASHOUT_ZONE_PIN_KEYS"]),
			ZoneMACKey: macEntry(secrets["CASHOUT_ZONE_MAC_KEYS"], zones.Current().ID()),
		})
	}

	// Run until asked to stop or until a child dies: a stack with a dead service is not a
	// stack anyone should be testing against, unless the caller kills children on purpose.
	died := make(chan *process, len(procs))
	for _, p := range procs {
		go func(p *process) { <-p.done; died <- p }(p)
	}
	for {
		select {
		case <-ctx.Done():
			log.Info("stopping")
			return nil
		case p := <-died:
			if !cfg.TolerateExit {
				return fmt.Errorf("%s stopped unexpectedly: %v", p.name, p.err)
			}
			log.Warn("a child stopped; the stack keeps running (TolerateExit)", "process", p.name, "err", p.err)
		}
	}
}

// webauthnEnv is identity's passkey relying party in development: RP id "localhost" (browsers
// allow WebAuthn on http://localhost), and each BFF's origin as the browser tests open it
// (localhost) and as the stack reports it (127.0.0.1).
func webauthnEnv(bffAddrs []string) []string {
	var origins []string
	for _, a := range bffAddrs {
		origins = append(origins, displayURL(a))
		if _, port, err := net.SplitHostPort(a); err == nil {
			origins = append(origins, "http://"+net.JoinHostPort("127.0.0.1", port))
		}
	}
	return []string{"IDENTITY_WEBAUTHN_RP_ID=localhost", "IDENTITY_WEBAUTHN_ORIGINS=" + strings.Join(slices.Compact(origins), ",")}
}

func displayURL(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "127.0.0.1" || host == "0.0.0.0" || host == "::" {
		host = "localhost"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// natsCredentials makes this run's NKeys (a folder of 0600 seeds under the data folder,
// removed when the stack stops) and the authorization file the embedded server reads.
func natsCredentials(dataDir string) (bus.KeySet, func(), error) {
	dir, err := os.MkdirTemp(dataDir, "nats-keys-")
	if err != nil {
		return bus.KeySet{}, nil, err
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	ids := append(bus.Deployed(), bus.Observer())
	keys, err := bus.GenerateKeys(dir, ids)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "auth.conf"), []byte(bus.AuthConf(ids, keys.Key)), 0o600)
	}
	if err != nil {
		cleanup()
		return bus.KeySet{}, nil, fmt.Errorf("NATS credentials: %w", err)
	}
	return keys, cleanup, nil
}

// natsEnv gives a child its own NATS credentials: none with a NATS of the caller's, nor to
// cashout, which does not use NATS.
func natsEnv(keys *bus.KeySet, identity string) []string {
	if _, ok := bus.Lookup(identity); keys == nil || !ok {
		return nil
	}
	return []string{"NATS_NKEY_SEED_FILE=" + keys.SeedFile(identity)}
}

// ConnectNATS connects to the stack's NATS as the observer whose seed is seedFile (Ready's
// NatsObserverSeedFile; empty: without credentials), read-only, for the tools and tests that
// read the streams or tap subjects.
func ConnectNATS(url, seedFile, name string, opts ...nats.Option) (*nats.Conn, error) {
	creds := bus.Credentials{NKeySeedFile: seedFile, Identity: bus.IdentityObserver}
	credOpts, err := creds.Options()
	if err != nil {
		return nil, err
	}
	return nats.Connect(url, append(append(credOpts, nats.Name(name)), opts...)...)
}

func startNATS(storeDir string, maxConsumers int, keys bus.KeySet, port int) (*server.Server, error) {
	// The authorization is the rendered permission table, read as nats-server reads its
	// configuration in production.
	opts, err := server.ProcessConfigFile(filepath.Join(keys.Dir, "auth.conf"))
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	opts.Host = "127.0.0.1"
	opts.Port = port
	opts.JetStream = true
	opts.StoreDir = storeDir
	opts.NoSigs = true
	opts.NoLog = true
	opts.JetStreamLimits.DefaultMaxConsumers = maxConsumers
	ns, err := server.NewServer(opts)
	if err != nil {
		return nil, fmt.Errorf("embedded NATS: %w", err)
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		return nil, errors.New("embedded NATS did not start")
	}
	return ns, nil
}

// listeners opens a listener on each of n free loopback ports. They stay open until the
// children that serve on them have started and hold them (startServing): a port closed and
// picked again by its child could be taken in between by another stack on the machine.
func listeners(n int) ([]*net.TCPListener, error) {
	lns := make([]*net.TCPListener, 0, n)
	for range n {
		l, err := net.ListenTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
		if err != nil {
			for _, l := range lns {
				_ = l.Close()
			}
			return nil, err
		}
		lns = append(lns, l)
	}
	return lns, nil
}

// listenOn opens a listener on each of addrs, as they are written (a child started again
// serves where it served before; the first BFF serves at the address the caller chose).
func listenOn(addrs ...string) (map[string]*net.TCPListener, error) {
	lns := make(map[string]*net.TCPListener, len(addrs))
	for _, addr := range addrs {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err == nil {
			var l *net.TCPListener
			if l, err = net.ListenTCP("tcp", a); err == nil {
				lns[addr] = l
				continue
			}
		}
		for _, l := range lns {
			_ = l.Close()
		}
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	return lns, nil
}

// waitServing polls addr's gRPC health until the server says it is serving, failing early
// when a child has died.
func waitServing(ctx context.Context, name, addr string, timeout time.Duration, procs []*process) error {
	deadline := time.Now().Add(timeout)
	for {
		status, err := checkHealth(ctx, addr)
		if err == nil && status == healthpb.HealthCheckResponse_SERVING {
			return nil
		}
		if err := anyDied(procs); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s was not serving on %s within %s (last: %v, %v)", name, addr, timeout, status, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// checkHealth asks addr's gRPC health once, within a second, on a connection of its own: a
// client kept across attempts would back off between its reconnections, for up to minutes.
func checkHealth(ctx context.Context, addr string) (healthpb.HealthCheckResponse_ServingStatus, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return 0, err
	}
	defer conn.Close() //nolint:errcheck // a probe's connection; nothing to do on error
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	return res.GetStatus(), err
}

// anyDied reports a child that has ended while the stack was starting.
func anyDied(procs []*process) error {
	for _, p := range procs {
		select {
		case <-p.done:
			return fmt.Errorf("%s stopped while the stack was starting: %v", p.name, p.err)
		default:
		}
	}
	return nil
}

// waitHTTP polls url until it answers 200, failing early when a child has died.
func waitHTTP(ctx context.Context, url string, timeout time.Duration, procs []*process) error {
	deadline := time.Now().Add(timeout)
	client := &http.Client{Timeout: time.Second}
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close() //nolint:errcheck // only the status matters; its Close error says nothing
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := anyDied(procs); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the BFF did not become healthy at %s within %s", url, timeout)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// devSecrets are the secrets the services need, and how each is made. In development they are
// random, made once per data folder and kept there (dev-secrets.json); in production they come
// from the platform's secret store.
var devSecrets = map[string]func() (string, error){
	"IDENTITY_SIGNING_KEY":              random32, // an Ed25519 seed
	"IDENTITY_CODE_KEY":                 random32, // HMAC key of the one-time codes (32 bytes)
	"PAYMENTMETHODS_KEY_ENCRYPTION_KEY": random32,
	"PAYMENTMETHODS_FINGERPRINT_KEY":    random32,
	"TRANSFERS_SERVICE_SECRET":          random32,
	"TRANSFERS_PIN_KEY":                 random32, // HMAC key of the vouchers' PINs (32 bytes)
	"BFF_SERVICE_SECRET":                random32,
	// The key pair secrets are sealed to: producers get the public half (derived below).
	"NOTIFICATIONS_SEAL_KEYS": func() (string, error) {
		k, err := seal.GenerateKey("dev-" + time.Now().UTC().Format("20060102"))
		if err != nil {
			return "", err
		}
		return k.String(), nil
	},
	// In the delivery reports' URL path: URL-safe.
	"NOTIFICATIONS_WEBHOOK_TOKEN": randomToken,
	// The SMTP sink's and the SMS stand-in's credentials, which notifications uses as it would
	// the real servers'.
	"NOTIFICATIONS_SMTP_USERNAME":        func() (string, error) { return "thumela-dev", nil },
	"NOTIFICATIONS_SMTP_PASSWORD":        randomToken,
	"NOTIFICATIONS_BULKSMS_TOKEN_ID":     func() (string, error) { t, err := randomToken(); return "dev-" + t[:16], err },
	"NOTIFICATIONS_BULKSMS_TOKEN_SECRET": randomToken,
	// The cash-out gateway's secret towards identity (as the atm-gateway service).
	"CASHOUT_SERVICE_SECRET": random32,
	// The on-call tools' secret towards identity (as the oncall service: make reconcile). No
	// process of the stack gets it; the tools read it from dev-secrets.json.
	"ONCALL_SERVICE_SECRET": random32,
	// The zone PIN key the gateway shares with the ATM switches (here: with /dev/atm), as
	// CASHOUT_ZONE_PIN_KEYS lists it: "<key id>:<AES-256 key in hex>:<acquirer ids>". The dev
	// ATM plays every bank's ATMs, as a national switch's link carries them all, so the key is
	// issued to the five banks' acquirer ids. Its MAC key (CASHOUT_ZONE_MAC_KEYS) is made beside
	// it, with its id, by devZoneKeys.
	"CASHOUT_ZONE_PIN_KEYS": func() (string, error) {
		key, err := randomAESKeyHex()
		if err != nil {
			return "", err
		}
		return "dev-" + time.Now().UTC().Format("20060102") + ":" + key + ":" + devAcquirers, nil
	},
}

// devAcquirers are the DE 32 ids the dev zone keys are issued to: the gateway's default codes
// of the five banks, which the dev ATM sends.
var devAcquirers = strings.Join([]string{atmnet.AcquirerStandardBank, atmnet.AcquirerABSA, atmnet.AcquirerFNB,
	atmnet.AcquirerNedbank, atmnet.AcquirerCapitec}, "+")

// derivedOwnSecrets are secrets given to one service alone (secretOwner) that are made from
// another rather than on their own (devSecrets).
var derivedOwnSecrets = []string{"CASHOUT_ZONE_MAC_KEYS"}

// devZoneKeys brings a data folder's zone keys up to what the gateway needs: a zone PIN key
// bound to acquirer ids (one made before the binding, "<id>:<key>", gets the dev ATM's five)
// and a zone MAC key of each zone PIN key's id. It reports whether it changed anything.
func devZoneKeys(secrets map[string]string) (bool, error) {
	changed := false
	entries := strings.Split(secrets["CASHOUT_ZONE_PIN_KEYS"], ",")
	macs := secrets["CASHOUT_ZONE_MAC_KEYS"]
	for i, e := range entries {
		e = strings.TrimSpace(e)
		if strings.Count(e, ":") == 1 {
			e += ":" + devAcquirers
			changed = true
		}
		entries[i] = e
		id, _, _ := strings.Cut(e, ":")
		if macEntry(macs, id) != "" {
			continue
		}
		key, err := randomAESKeyHex()
		if err != nil {
			return false, err
		}
		if macs != "" {
			macs += ","
		}
		macs += id + ":" + key
		changed = true
	}
	secrets["CASHOUT_ZONE_PIN_KEYS"] = strings.Join(entries, ",")
	secrets["CASHOUT_ZONE_MAC_KEYS"] = macs
	return changed, nil
}

// devZones reads the dev zone keys as the gateway does.
func devZones(secrets map[string]string) (*atmnet.Zones, error) {
	pin, err := atmnet.ParseZoneKeys(strings.Split(secrets["CASHOUT_ZONE_PIN_KEYS"], ","))
	if err != nil {
		return nil, fmt.Errorf("dev secrets: CASHOUT_ZONE_PIN_KEYS: %w", err)
	}
	mac, err := atmnet.ParseMACKeys(strings.Split(secrets["CASHOUT_ZONE_MAC_KEYS"], ","))
	if err != nil {
		return nil, fmt.Errorf("dev secrets: CASHOUT_ZONE_MAC_KEYS: %w", err)
	}
	zones, err := atmnet.NewZones(pin, mac)
	if err != nil {
		return nil, fmt.Errorf("dev secrets: %w", err)
	}
	return zones, nil
}

func firstEntry(list string) string {
	first, _, _ := strings.Cut(list, ",")
	return strings.TrimSpace(first)
}

// macEntry is the entry of list ("<id>:<key>,…") whose id is id, or "".
func macEntry(list, id string) string {
	for e := range strings.SplitSeq(list, ",") {
		e = strings.TrimSpace(e)
		if eid, _, ok := strings.Cut(e, ":"); ok && eid == id {
			return e
		}
	}
	return ""
}

// secretOwner names, for each dev secret given to one service alone, that service: the private
// keys and the credentials towards providers have no business in another process's
// environment. The others go to every child.
var secretOwner = map[string]string{
	"NOTIFICATIONS_SEAL_KEYS":            "notifications",
	"NOTIFICATIONS_WEBHOOK_TOKEN":        "notifications",
	"NOTIFICATIONS_SMTP_USERNAME":        "notifications",
	"NOTIFICATIONS_SMTP_PASSWORD":        "notifications",
	"NOTIFICATIONS_BULKSMS_TOKEN_ID":     "notifications",
	"NOTIFICATIONS_BULKSMS_TOKEN_SECRET": "notifications",
	"CASHOUT_SERVICE_SECRET":             "cashout",
	"CASHOUT_ZONE_PIN_KEYS":              "cashout",
	"CASHOUT_ZONE_MAC_KEYS":              "cashout",
	"ONCALL_SERVICE_SECRET":              onCallTools, // no child: the on-call tools only
	// The key the one-time codes are stored under: only identity reads or writes them.
	"IDENTITY_CODE_KEY": "identity",
}

// onCallTools owns the secrets no process of the stack gets: the on-call tools' (make
// reconcile), which read dev-secrets.json.
const onCallTools = "oncall"

// randomAESKeyHex is a new AES-256 key in hex, as the zone key variables take it.
func randomAESKeyHex() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

func random32() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.StdEncoding.EncodeToString(b), nil
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// loadDevSecrets reads the data folder's secrets, makes the missing ones (a folder from before a
// secret existed gets it added) and derives the rest: identity's list of internal callers and
// the public half of notifications' key.
// DevSecretsFile and DevAddrsFile are the files in the data folder that the on-call tools read:
// the dev secrets, and the gRPC addresses of the running stack's services (written at each
// start, since the ports are picked then).
const (
	DevSecretsFile = "dev-secrets.json" //nolint:gosec // G101: a file name, not a credential
	DevAddrsFile   = "dev-addrs.json"
)

func writeDevAddrs(path string, addrs map[string][]string) error {
	b, err := json.MarshalIndent(addrs, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// LoadDevAddrs reads the addresses the running stack wrote into dataDir: service -> its
// replicas' gRPC addresses.
func LoadDevAddrs(dataDir string) (map[string][]string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, DevAddrsFile))
	if err != nil {
		return nil, fmt.Errorf("the stack's addresses (is `make run` running?): %w", err)
	}
	addrs := map[string][]string{}
	if err := json.Unmarshal(b, &addrs); err != nil {
		return nil, fmt.Errorf("read %s: %w", DevAddrsFile, err)
	}
	return addrs, nil
}

// LoadDevSecretsFile reads the dev secrets as they are, without making any that are missing.
func LoadDevSecretsFile(dataDir string) (map[string]string, error) {
	return readSecretsFile(filepath.Join(dataDir, DevSecretsFile))
}

// readSecretsFile reads a JSON object of secrets by name.
func readSecretsFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	secrets := map[string]string{}
	if err := json.Unmarshal(b, &secrets); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return secrets, nil
}

func loadDevSecrets(path string) (map[string]string, error) {
	// A first run has no file yet: every secret is made below.
	secrets, err := readSecretsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		secrets, err = map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	changed := false
	for _, name := range slices.Sorted(maps.Keys(devSecrets)) {
		if secrets[name] == "" {
			v, err := devSecrets[name]()
			if err != nil {
				return nil, err
			}
			secrets[name] = v
			changed = true
		}
	}
	zoneChanged, err := devZoneKeys(secrets)
	if err != nil {
		return nil, err
	}
	changed = changed || zoneChanged
	// Identity checks each internal caller's secret; the gateway calls transfers as atm-gateway.
	secrets["IDENTITY_SERVICE_SECRETS"] = "transfers=" + secrets["TRANSFERS_SERVICE_SECRET"] + ",bff=" + secrets["BFF_SERVICE_SECRET"] +
		",atm-gateway=" + secrets["CASHOUT_SERVICE_SECRET"] + ",oncall=" + secrets["ONCALL_SERVICE_SECRET"]
	// Producers seal to the current (first) key of notifications' keyring.
	current, _, _ := strings.Cut(secrets["NOTIFICATIONS_SEAL_KEYS"], ",")
	priv, err := seal.ParsePrivateKey(strings.TrimSpace(current))
	if err != nil {
		return nil, fmt.Errorf("%s: NOTIFICATIONS_SEAL_KEYS: %w", path, err)
	}
	secrets["NOTIFICATIONS_SEAL_PUBLIC_KEY"] = priv.Public().String()
	if changed {
		b, _ := json.MarshalIndent(secrets, "", "  ")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return nil, err
		}
	}
	return secrets, nil
}
