package main

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	profilesv1 "github.com/thumela/thumela/proto/gen/go/thumela/profiles/v1"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// The binary's wiring, run in-process: it migrates its schema on a fresh database, serves
// health and its API behind token checks, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	svc := servicetest.Start(t, "profiles", spec, nil)
	svc.RequireMigrated(t)

	const user = "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"
	client := profilesv1.NewProfilesServiceClient(svc.Conn)
	if _, err := client.GetProfile(t.Context(), &profilesv1.GetProfileRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	// The first read creates the profile from the token's sign-up names.
	res, err := client.GetProfile(svc.UserContext(t, user), &profilesv1.GetProfileRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetProfile().GetFirstName() != "Thandi" {
		t.Fatalf("profile = %v", res.GetProfile())
	}
	svc.StopWithSIGTERM(t)
}
