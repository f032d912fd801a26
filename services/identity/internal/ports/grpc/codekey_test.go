package grpcport_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"testing"

	"google.golang.org/grpc/codes"

	identityv1 "github.com/thumela/thumela/proto/gen/go/thumela/identity/v1"

	grpcport "github.com/thumela/thumela/services/identity/internal/ports/grpc"
)

// What the database holds of a code (its salt, purpose and hash) does not give the code away:
// the hash is the HMAC under IDENTITY_CODE_KEY, not a hash anyone could recompute over the
// 10^6 possible codes. A row hashed the old way (unkeyed SHA-256, before the key) fails
// verification, as the codes live at the deploy do: their users request a new code.
func TestStoredCodeNeedsTheKey(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := ctxT(t)
	id, code := e.signUp("keyed@example.com")

	var purpose string
	var salt, stored []byte
	if err := e.pool.QueryRow(ctx, `SELECT purpose, salt, code_hash FROM one_time_codes WHERE user_id = $1`, id).
		Scan(&purpose, &salt, &stored); err != nil {
		t.Fatal(err)
	}
	unkeyed := sha256.New()
	unkeyed.Write(salt)
	unkeyed.Write([]byte(purpose))
	unkeyed.Write([]byte{0})
	unkeyed.Write([]byte(code))
	if bytes.Equal(stored, unkeyed.Sum(nil)) {
		t.Fatal("the stored code is the unkeyed SHA-256 of its row and digits: a dump gives it away")
	}
	mac := hmac.New(sha256.New, e.codeKey)
	mac.Write(salt)
	mac.Write([]byte(purpose))
	mac.Write([]byte{0})
	mac.Write([]byte(code))
	if !hmac.Equal(stored, mac.Sum(nil)) {
		t.Fatal("the stored code is not the HMAC-SHA256 under IDENTITY_CODE_KEY")
	}

	// A code stored before the key: refused, like any wrong code.
	if _, err := e.pool.Exec(ctx, `UPDATE one_time_codes SET code_hash = $2 WHERE user_id = $1`, id, unkeyed.Sum(nil)); err != nil {
		t.Fatal(err)
	}
	_, err := e.bff.VerifyEmail(ctx, &identityv1.VerifyEmailRequest{Email: "keyed@example.com", Code: code, Client: browser})
	wantStatus(t, err, codes.InvalidArgument, grpcport.MsgCodeInvalid)
}
