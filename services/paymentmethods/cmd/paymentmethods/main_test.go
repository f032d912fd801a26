package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	paymentmethodsv1 "github.com/thumela/thumela/proto/gen/go/thumela/paymentmethods/v1"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/natstest"
	"github.com/thumela/thumela/services/platform/pgtest"
	"github.com/thumela/thumela/services/platform/service"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

// The binary's wiring, run in-process: it migrates its schema on a fresh database, serves
// health and its API behind token checks, and stops cleanly on SIGTERM.
func TestServesAndStopsOnSIGTERM(t *testing.T) {
	// Not parallel: it sets the environment and signals the process.
	svc := servicetest.Start(t, "paymentmethods", spec, map[string]string{
		"PAYMENTMETHODS_KEY_ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(randomBytes(t, 32)),
		"PAYMENTMETHODS_FINGERPRINT_KEY":    base64.StdEncoding.EncodeToString(randomBytes(t, 32)),
		"PAYMENTMETHODS_SANDBOX_DELAY":      "1ms",
	})
	svc.RequireMigrated(t)

	client := paymentmethodsv1.NewPaymentMethodsServiceClient(svc.Conn)
	if _, err := client.ListPaymentMethods(t.Context(), &paymentmethodsv1.ListPaymentMethodsRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("call without a token: %v, want Unauthenticated", err)
	}
	checkAPI(t, svc.UserContext(t, "0190f6a4-3c2e-7d41-9b7e-2f4f1f6c8a01"), client)

	db, err := pgx.Connect(t.Context(), svc.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	var tables int
	if err := db.QueryRow(t.Context(), `SELECT count(*) FROM information_schema.tables WHERE table_schema = 'paymentmethods'
		AND table_name IN ('payment_methods', 'card_vault', 'payment_method_usage', 'charges', 'refunds', 'outbox')`).Scan(&tables); err != nil || tables != 6 {
		t.Fatalf("tables: %d %v", tables, err)
	}
	svc.StopWithSIGTERM(t)
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// The API answers through the wired service: a card is tokenized (with the sandbox processor)
// and listed; Charge admits only the transfers service.
func checkAPI(t *testing.T, ctx context.Context, client paymentmethodsv1.PaymentMethodsServiceClient) {
	t.Helper()
	added, err := client.AddCard(ctx, &paymentmethodsv1.AddCardRequest{
		Name: "Everyday", CardNumber: "4242 4242 4242 4242", ExpiryMonth: 12, ExpiryYear: int32(time.Now().Year() + 2), Cvv: "123",
	})
	if err != nil {
		t.Fatalf("AddCard: %v", err)
	}
	list, err := client.ListPaymentMethods(ctx, &paymentmethodsv1.ListPaymentMethodsRequest{})
	if err != nil || len(list.GetPaymentMethods()) != 1 || list.GetPaymentMethods()[0].GetId() != added.GetPaymentMethod().GetId() ||
		!list.GetPaymentMethods()[0].GetIsDefault() || list.GetPaymentMethods()[0].GetLastFour() != "4242" {
		t.Fatalf("ListPaymentMethods = %v %v", list, err)
	}
	// Charge admits only the transfers service: a user token is refused before the handler.
	_, err = client.Charge(ctx, &paymentmethodsv1.ChargeRequest{})
	if status.Code(err) != codes.PermissionDenied {
		t.Fatalf("Charge with a user token: %v, want PermissionDenied", err)
	}
}

// A missing or malformed vault key stops the service at start, naming the variable and never
// echoing the value.
func TestRefusesToStartWithoutVaultKeys(t *testing.T) {
	// Not parallel: it sets the environment.
	t.Setenv("DATABASE_URL", pgtest.NewDatabase(t))
	for k, v := range natstest.Start(t).Env("paymentmethods") {
		t.Setenv(k, v)
	}
	t.Setenv("LOG_LEVEL", "error")
	good := base64.StdEncoding.EncodeToString(randomBytes(t, 32))
	for _, tt := range []struct {
		kek, fp, want string
	}{
		{"", good, "PAYMENTMETHODS_KEY_ENCRYPTION_KEY"},
		{good, "", "PAYMENTMETHODS_FINGERPRINT_KEY"},
		{"c2VjcmV0LXRvby1zaG9ydA==", good, "PAYMENTMETHODS_KEY_ENCRYPTION_KEY"},
		{good, "c2VjcmV0LXRvby1zaG9ydA==", "PAYMENTMETHODS_FINGERPRINT_KEY"},
		{"not base64 s3cr3t!", good, "PAYMENTMETHODS_KEY_ENCRYPTION_KEY"},
	} {
		t.Setenv("PAYMENTMETHODS_KEY_ENCRYPTION_KEY", tt.kek)
		t.Setenv("PAYMENTMETHODS_FINGERPRINT_KEY", tt.fp)
		err := service.Run(t.Context(), spec(auth.StaticKeys{}))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Fatalf("kek=%q fp=%q: %v, want an error naming %s", tt.kek, tt.fp, err, tt.want)
		}
		for _, secret := range []string{tt.kek, tt.fp} {
			if secret != "" && strings.Contains(err.Error(), secret) {
				t.Fatalf("the error echoes a key: %v", err)
			}
		}
	}
}
