package bench

import (
	"context"
	"crypto/rand"
	"time"

	"golang.org/x/crypto/argon2"

	bffv1 "github.com/thumela/thumela/proto/gen/go/thumela/bff/v1"
)

// signIn runs 5.: it times sequential sign-ins, each right after one argon2id hash in this
// process, so that the two see the same machine; the figure is the ratio of their medians.
func (r *runner) signIn(ctx context.Context, u *User) {
	r.step("timing %d sign-ins, each after one in-process argon2id hash", r.cfg.SignIns)
	from, logFrom := r.meter(), r.logSize()
	var lat, hashes []time.Duration
	var errs int
	for i := range r.cfg.SignIns + 2 {
		h := ArgonHash()
		t0 := time.Now()
		_, err := u.Auth.SignIn(ctx, &bffv1.SignInRequest{Email: u.Email, Password: u.Password})
		d := time.Since(t0)
		if err != nil {
			errs++
			if errs == 1 {
				r.step("sign-in failed: %v", err)
			}
			continue
		}
		if i >= 2 {
			lat = append(lat, d)
			hashes = append(hashes, h)
		}
	}
	s := Summarize(lat, 0, errs, nil)
	argon := Summarize(hashes, 0, 0, nil)
	r.raw["sign_in"] = s
	r.raw["sign_in_ms"] = durationsMs(lat)
	r.raw["argon2id"] = argon
	r.raw["argon2id_ms"] = durationsMs(hashes)
	if s.Count > 0 {
		r.step("sign-in p50 %.1f ms; one argon2id p50 %.1f ms", s.P50ms, argon.P50ms)
	}
	r.add(signInFigure(s, argon, errs))
	r.cpu("sign-in", from)
	r.rpcs("sign-in", logFrom)
}

// ArgonHash times one argon2id hash with identity's parameters (m=19456 KiB, t=2, p=1, 32-byte
// key) in this process.
func ArgonHash() time.Duration {
	salt := make([]byte, 16)
	_, _ = rand.Read(salt)
	t0 := time.Now()
	_ = argon2.IDKey([]byte("Bench-Horse-42-correct"), salt, 2, 19456, 1, 32)
	return time.Since(t0)
}
