package cashouttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/platform/config"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// Options are what Start needs: the transfers and identity to use (any, by address) and the
// atm-gateway secret identity knows; the rest has test defaults.
type Options struct {
	TransfersAddr string
	IdentityAddr  string
	ServiceSecret string
	// ZonePINKeys as CASHOUT_ZONE_PIN_KEYS; empty means a fresh current key set ("zpk-current")
	// and a retired one ("zpk-retired"), each bound to the five banks' default acquirer ids.
	ZonePINKeys []string
	// ZoneMACKeys as CASHOUT_ZONE_MAC_KEYS; empty means a fresh MAC key for each id of
	// ZonePINKeys.
	ZoneMACKeys []string
	// BankCodes as CASHOUT_BANK_CODES; empty means the defaults.
	BankCodes      []string
	RequestTimeout time.Duration // default 2s
	StandInWindow  time.Duration // default 30s
	// ISOMaxConnections, ISOIdleTimeout and TransmissionSkew as CASHOUT_ISO_MAX_CONNECTIONS,
	// CASHOUT_ISO_IDLE_TIMEOUT and CASHOUT_TRANSMISSION_SKEW; zero means the binary's defaults.
	ISOMaxConnections int
	ISOIdleTimeout    time.Duration
	TransmissionSkew  time.Duration
	// MetricsAddr, when set, serves the metrics there.
	MetricsAddr string
	// Serve, when set, runs the gateway in the test's process, configured by lookup and logging
	// to logs, until ctx ends: the binary's own tests pass its serve, so that they see its spans
	// and metrics in their process. Unset, Start builds the cashout binary and runs it.
	Serve func(ctx context.Context, lookup config.LookupFunc, logs io.Writer) error
}

// Gateway is one running gateway.
type Gateway struct {
	ISOAddr  string
	GRPCAddr string
	// Keys are the zone PIN keys it was given; Keys.Current() enciphers PIN blocks it accepts.
	Keys *atmnet.ZoneKeys
	// Zones are its key sets (PIN and MAC keys by id); Dial speaks as Zones.Current().
	Zones *atmnet.Zones
	logs  *syncBuffer
	stop  func() error
}

// binaryPackage is the cashout binary Start builds when no Serve is given.
const binaryPackage = "github.com/thumela/thumela/services/cashout/cmd/cashout"

// Start runs the gateway, as the binary assembles it, until the test ends, and returns once
// its ISO 8583 listener accepts connections and its health is SERVING.
func Start(t testing.TB, opts Options) *Gateway {
	t.Helper()
	if len(opts.ZonePINKeys) == 0 {
		opts.ZonePINKeys = []string{"zpk-current:" + randomHex(t, 16) + ":" + AllAcquirers, "zpk-retired:" + randomHex(t, 32) + ":" + AllAcquirers}
	}
	if len(opts.ZoneMACKeys) == 0 {
		for _, e := range opts.ZonePINKeys {
			id, _, _ := strings.Cut(strings.TrimSpace(e), ":")
			opts.ZoneMACKeys = append(opts.ZoneMACKeys, id+":"+randomHex(t, 32))
		}
	}
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = 2 * time.Second
	}
	if opts.StandInWindow == 0 {
		opts.StandInWindow = 30 * time.Second
	}
	keys, err := atmnet.ParseZoneKeys(opts.ZonePINKeys)
	if err != nil {
		t.Fatal(err)
	}
	macKeys, err := atmnet.ParseMACKeys(opts.ZoneMACKeys)
	if err != nil {
		t.Fatal(err)
	}
	zones, err := atmnet.NewZones(keys, macKeys)
	if err != nil {
		t.Fatal(err)
	}
	g := &Gateway{ISOAddr: servicetest.FreeAddr(t), GRPCAddr: servicetest.FreeAddr(t), Keys: keys, Zones: zones, logs: &syncBuffer{}}
	// The configuration as the binary reads it from its environment; empty means unset.
	env := map[string]string{
		"CASHOUT_GRPC_ADDR":           g.GRPCAddr,
		"CASHOUT_ISO_ADDR":            g.ISOAddr,
		"CASHOUT_METRICS_ADDR":        opts.MetricsAddr,
		"TRANSFERS_ADDR":              opts.TransfersAddr,
		"IDENTITY_ADDR":               opts.IdentityAddr,
		"CASHOUT_SERVICE_SECRET":      opts.ServiceSecret,
		"CASHOUT_ZONE_PIN_KEYS":       strings.Join(opts.ZonePINKeys, ","),
		"CASHOUT_ZONE_MAC_KEYS":       strings.Join(opts.ZoneMACKeys, ","),
		"CASHOUT_BANK_CODES":          strings.Join(opts.BankCodes, ","),
		"CASHOUT_REQUEST_TIMEOUT":     opts.RequestTimeout.String(),
		"CASHOUT_STAND_IN_WINDOW":     opts.StandInWindow.String(),
		"CASHOUT_SHUTDOWN_TIMEOUT":    "5s",
		"CASHOUT_ISO_MAX_CONNECTIONS": unlessZero(opts.ISOMaxConnections, strconv.Itoa),
		"CASHOUT_ISO_IDLE_TIMEOUT":    unlessZero(opts.ISOIdleTimeout, time.Duration.String),
		"CASHOUT_TRANSMISSION_SKEW":   unlessZero(opts.TransmissionSkew, time.Duration.String),
		"THUMELA_ENV":                 "test",
		"LOG_LEVEL":                   "debug",
	}
	var stopped <-chan error
	if opts.Serve != nil {
		g.stop, stopped = g.serve(opts.Serve, env)
	} else {
		g.stop, stopped = g.run(t, env)
	}
	t.Cleanup(func() {
		if err := g.stop(); err != nil {
			t.Errorf("cashouttest: gateway stopped with %v", err)
		}
	})
	g.waitReady(t, stopped)
	return g
}

// unlessZero is v as a variable's value, or "" (unset) when v is zero.
func unlessZero[T comparable](v T, format func(T) string) string {
	var zero T
	if v == zero {
		return ""
	}
	return format(v)
}

// serve runs the gateway in this process; stop ends its context.
func (g *Gateway) serve(serve func(context.Context, config.LookupFunc, io.Writer) error, env map[string]string) (stop func() error, stopped <-chan error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, config.MapLookup(env), g.logs) }()
	return sync.OnceValue(func() error {
		cancel()
		return wait(done)
	}), done
}

// run builds the binary and starts it with env (tracing kept local); stop sends SIGTERM.
func (g *Gateway) run(t testing.TB, env map[string]string) (stop func() error, stopped <-chan error) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cashout")
	if out, err := exec.Command("go", "build", "-o", bin, binaryPackage).CombinedOutput(); err != nil {
		t.Fatalf("cashouttest: go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none")
	for k, v := range env { // after the process's own variables, so these win
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Stdout, cmd.Stderr = g.logs, g.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return sync.OnceValue(func() error {
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			return err
		}
		err := wait(done)
		if err != nil {
			_ = cmd.Process.Kill()
		}
		return err
	}), done
}

// wait is the gateway's result once it has stopped.
func wait(done <-chan error) error {
	select {
	case err := <-done:
		return err
	case <-time.After(15 * time.Second):
		return errors.New("cashouttest: gateway did not stop")
	}
}

// Stop stops the gateway as SIGTERM would (listener closed, requests in progress answered)
// and returns what it returned.
func (g *Gateway) Stop() error { return g.stop() }

func (g *Gateway) waitReady(t testing.TB, stopped <-chan error) {
	t.Helper()
	// Both ports first (a gRPC client that dials too early backs off for a second), then health.
	deadline := time.Now().Add(10 * time.Second)
	for _, addr := range []string{g.GRPCAddr, g.ISOAddr} {
		for {
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cashouttest: gateway not listening on %s: %v", addr, err)
			}
			select {
			case err := <-stopped:
				t.Fatalf("cashouttest: gateway stopped at start: %v\n%s", err, g.Logs())
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	conn, err := grpc.NewClient(g.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}, grpc.WaitForReady(true))
	if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("cashouttest: gateway health %v, %v", res.GetStatus(), err)
	}
}

// Dial connects an ATM switch to the gateway as a link of the current key set (its requests
// MAC'd under its MAC key); the connection closes when the test ends.
func (g *Gateway) Dial(t testing.TB) *atmnet.Client {
	t.Helper()
	return g.DialWith(t, g.Zones.Current().MAC)
}

// DialWith connects as a link whose zone MAC key is key (another key set of the gateway's, or
// one it does not share).
func (g *Gateway) DialWith(t testing.TB, key atmnet.MACKey) *atmnet.Client {
	t.Helper()
	c, err := atmnet.Dial(context.Background(), g.ISOAddr, key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// AllAcquirers binds a test key set to the five banks' default acquirer ids (DE 32), as a
// national switch's link carries every bank's ATMs.
var AllAcquirers = strings.Join([]string{atmnet.AcquirerStandardBank, atmnet.AcquirerABSA, atmnet.AcquirerFNB,
	atmnet.AcquirerNedbank, atmnet.AcquirerCapitec}, "+")

// Logs is everything the gateway logged so far (JSON lines).
func (g *Gateway) Logs() string { return g.logs.String() }

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
