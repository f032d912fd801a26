package main

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// The binary's wiring, run in-process: it migrates its schema on a fresh database, serves
// health and its API behind token checks, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	svc := servicetest.Start(t, "fees", spec, nil)
	svc.RequireMigrated(t)

	client := feesv1.NewFeesServiceClient(svc.Conn)
	if _, err := client.ListBanks(t.Context(), &feesv1.ListBanksRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	res, err := client.ListBanks(svc.UserContext(t, "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"), &feesv1.ListBanksRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.GetBanks()) != 5 {
		t.Fatalf("banks = %v, want the five seeded", res.GetBanks())
	}
	svc.StopWithSIGTERM(t)
}
