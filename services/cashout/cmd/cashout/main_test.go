package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	feesv1 "github.com/thumela/thumela/proto/gen/go/thumela/fees/v1"
	"github.com/thumela/thumela/services/cashout/atmnet"
	"github.com/thumela/thumela/services/cashout/cashouttest"
	"github.com/thumela/thumela/services/platform/auth"
	"github.com/thumela/thumela/services/platform/service/servicetest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// The binary as deployed: configured by the environment, serving ISO 8583 and health, stopping
// cleanly on SIGTERM, and logging its configuration with the secrets masked.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "cashout")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	signer := cashouttest.NewSigner(t)
	const secret = "atm-gateway-secret-for-the-test"
	identity := cashouttest.FakeIdentity(t, signer, map[string]string{"atm-gateway": secret})
	transfers := cashouttest.NewFakeTransfers(t, signer)
	key := hex.EncodeToString(bytes.Repeat([]byte{0x5a}, 16))
	macKeyHex := hex.EncodeToString(bytes.Repeat([]byte{0xa5}, 32))
	isoAddr, grpcAddr := servicetest.FreeAddr(t), servicetest.FreeAddr(t)

	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"CASHOUT_ISO_ADDR="+isoAddr,
		"CASHOUT_GRPC_ADDR="+grpcAddr,
		"CASHOUT_SERVICE_SECRET="+secret,
		"CASHOUT_ZONE_PIN_KEYS=zpk-1:"+key+":"+atmnet.AcquirerCapitec,
		"CASHOUT_ZONE_MAC_KEYS=zpk-1:"+macKeyHex,
		"TRANSFERS_ADDR="+transfers.Addr(),
		"IDENTITY_ADDR="+identity,
		"OTEL_TRACES_EXPORTER=none",
	)
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	macKeys, err := atmnet.ParseMACKeys([]string{"zpk-1:" + macKeyHex})
	if err != nil {
		t.Fatal(err)
	}
	var atm *atmnet.Client
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := atmnet.Dial(t.Context(), isoAddr, macKeys[0])
		if err == nil {
			atm = c
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the gateway never listened: %v\n%s", err, out.String())
		}
		select {
		case err := <-exited:
			t.Fatalf("the gateway exited: %v\n%s", err, out.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	defer atm.Close()

	keys, err := atmnet.ParseZoneKeys([]string{"zpk-1:" + key + ":" + atmnet.AcquirerCapitec})
	if err != nil {
		t.Fatal(err)
	}
	v := transfers.Issue(t, feesv1.Bank_BANK_CAPITEC, 30000)
	stan, rrn := atmnet.NewReferences(time.Now())
	req, err := atmnet.NewWithdrawal(atmnet.Withdrawal{
		VoucherNumber: v.Number, PIN: v.PIN, Phone: v.Phone, AmountCents: v.AmountCents,
		AcquirerID: atmnet.AcquirerCapitec, TerminalID: "CAP00001", Location: "Capitec ATM Soweto",
		STAN: stan, RRN: rrn,
	}, keys.Current())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	res, err := atm.Do(ctx, req)
	if err != nil || res.ResponseCode != atmnet.RespApproved {
		t.Fatalf("withdrawal: %+v, %v\n%s", res, err, out.String())
	}

	// Health answers anyone (the probes); reflection a service token only.
	checkReflection(t, grpcAddr, signer)

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, out.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
	logs := out.String()
	if !strings.Contains(logs, `"msg":"starting"`) || !strings.Contains(logs, `"ZONE_PIN_KEYS":"*****"`) ||
		!strings.Contains(logs, `"ZONE_MAC_KEYS":"*****"`) || !strings.Contains(logs, `"acquirers":{"zpk-1":["470010"]}`) {
		t.Errorf("no start-up line with the configuration:\n%s", logs)
	}
	for _, s := range []string{secret, key, macKeyHex, v.Number, v.PIN + `"`} {
		if strings.Contains(logs, s) {
			t.Errorf("the logs show %q:\n%s", s, logs)
		}
	}
}

// checkReflection: the gateway's gRPC port answers health without a token, refuses reflection
// without one (Unauthenticated) and with a user's (PermissionDenied), and lists its services
// to any service token identity signed.
func checkReflection(t *testing.T, addr string, signer auth.Signer) {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if res, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health without a token: %v, %v", res.GetStatus(), err)
	}
	list := func(token string) ([]string, error) {
		ctx := ctx
		if token != "" {
			ctx = auth.WithBearer(ctx, token)
		}
		stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
		if err != nil {
			return nil, err
		}
		defer stream.CloseSend() //nolint:errcheck // the answer is in hand
		// A refusal can end the stream before the request is sent: Send then says io.EOF, and
		// Recv gives the refusal's status (grpc.ClientStream.SendMsg).
		if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		res, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		var names []string
		for _, s := range res.GetListServicesResponse().GetService() {
			names = append(names, s.GetName())
		}
		return names, nil
	}
	now := time.Now()
	sign := func(c auth.Claims) string {
		c.Issuer, c.IssuedAt, c.ExpiresAt = auth.IdentityIssuer, now, now.Add(time.Minute)
		tok, err := signer.Sign(c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	if _, err := list(""); status.Code(err) != codes.Unauthenticated {
		t.Errorf("reflection without a token: %v, want Unauthenticated", err)
	}
	if _, err := list(sign(auth.Claims{Subject: "user-1", Kind: auth.KindUser})); status.Code(err) != codes.PermissionDenied {
		t.Errorf("reflection with a user token: %v, want PermissionDenied", err)
	}
	names, err := list(sign(auth.Claims{Subject: "oncall", Kind: auth.KindService}))
	if err != nil || !slices.Contains(names, "grpc.health.v1.Health") {
		t.Errorf("reflection with a service token: %v, %v", names, err)
	}
}
