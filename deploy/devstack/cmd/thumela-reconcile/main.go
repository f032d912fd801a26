// Command thumela-reconcile is `make reconcile`: it asks the running dev stack's transfers
// service to run the money checks now (Reconcile, as the on-call service "oncall") and prints
// what they found. It exits 1 when the money does not reconcile. In production on-call calls
// the same RPC with the oncall service's own secret (docs/operations.md).
//
//	thumela-reconcile            # the window since the last clean run
//	thumela-reconcile -full      # the whole history
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"google.golang.org/grpc"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
	transfersv1 "github.com/thumela/thumela/proto/gen/go/thumela/transfers/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/grpcserver"
)

// onCallService is the service name identity issues the token for (transfers admits only it).
const onCallService = "oncall"

func main() {
	mismatches, err := run(os.Args[1:], os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "thumela-reconcile:", err)
		os.Exit(2)
	}
	if mismatches > 0 {
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) (int, error) {
	root, _ := os.Getwd()
	fs := flag.NewFlagSet("thumela-reconcile", flag.ContinueOnError)
	dataDir := fs.String("data", filepath.Join(root, ".data"), "the data folder of the running `make run` stack")
	full := fs.Bool("full", false, "check the whole history, not only the window since the last clean run")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the run")
	if err := fs.Parse(args); err != nil {
		return 0, err
	}
	addrs, err := stack.LoadDevAddrs(*dataDir)
	if err != nil {
		return 0, err
	}
	secrets, err := stack.LoadDevSecretsFile(*dataDir)
	if err != nil {
		return 0, err
	}
	if len(addrs["identity"]) == 0 || len(addrs["transfers"]) == 0 || secrets["ONCALL_SERVICE_SECRET"] == "" {
		return 0, errors.New("the data folder names no identity or transfers address, or no oncall secret: start the stack with `make run`")
	}
	identity, err := grpcserver.Dial(addrs["identity"][0])
	if err != nil {
		return 0, err
	}
	defer identity.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error
	tokens := auth.IdentityServiceTokens(identity, onCallService, secrets["ONCALL_SERVICE_SECRET"])
	conn, err := grpcserver.Dial(addrs["transfers"][0], grpc.WithPerRPCCredentials(auth.PerRPCCredentials(tokens)))
	if err != nil {
		return 0, err
	}
	defer conn.Close() //nolint:errcheck // a client connection closed on the way out; nothing to do on error

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	resp, err := transfersv1.NewTransfersServiceClient(conn).Reconcile(ctx, &transfersv1.ReconcileRequest{Full: *full})
	if err != nil {
		return 0, fmt.Errorf("Reconcile: %w", err) //nolint:staticcheck // ST1005: the RPC's name, as the contract spells it
	}
	return report(out, resp.GetRun()), nil
}

// report prints the run for a person and returns its number of mismatches.
func report(out io.Writer, r *transfersv1.ReconciliationRun) int {
	scope := "the whole history"
	switch {
	case r.GetFull():
	case r.GetWindowFrom().AsTime().Unix() <= 0:
		scope += " (no clean run before this one)"
	default:
		scope = "the window since " + r.GetWindowFrom().AsTime().Local().Format(time.DateTime)
	}
	took := r.GetFinishedAt().AsTime().Sub(r.GetStartedAt().AsTime()).Round(time.Millisecond)
	fmt.Fprintf(out, "reconciliation %s: %d transfers checked over %s in %s\n", r.GetId(), r.GetTransfersChecked(), scope, took)
	if len(r.GetMismatches()) == 0 {
		fmt.Fprintln(out, "the money reconciles: no mismatch")
		return 0
	}
	fmt.Fprintf(out, "%d mismatch(es) (runbook: docs/operations.md, \"Reconciliation found a mismatch\"):\n", len(r.GetMismatches()))
	for _, m := range r.GetMismatches() {
		fmt.Fprintf(out, "  %-26s %v  %s\n", m.GetKind(), m.GetTransferIds(), m.GetDetail())
	}
	return len(r.GetMismatches())
}
