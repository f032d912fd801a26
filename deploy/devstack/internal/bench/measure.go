package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/thumela/thumela/deploy/devstack/internal/stack"
)

// measure runs every phase that needs the stack, in an order that keeps them apart: idle memory,
// the baselines, the users, sign-in, then the loads, then memory again.
func (r *runner) measure(ctx context.Context, ready stack.Ready, workDir string) {
	o := r.cfg
	r.pids = ready.PIDs
	r.databases = map[string]string{databaseName(ready.DatabaseURL): StackDB}
	if b, err := openBackendNames(ctx, ready.DatabaseURL); err == nil {
		r.backends = b
		defer func() { b.close(); r.backends = nil }()
	} else {
		r.step("the stack's PostgreSQL backends are counted together: %v", err)
	}

	// 7a. Idle memory.
	idle := r.idleMemory(ctx, ready)

	pg := r.startBaselines(ctx, ready, workDir)
	defer pg.close()

	// Users: sign up, verify through the dev outbox, save the approving sandbox card.
	client := NewClient(ClientConfig{BaseURL: ready.BaseURL, JSON: o.Codec == "json", StreamsHTTP1: o.StreamsProtocol == "http1"})
	defer client.Close()
	n := o.StreamUsers + 1 // the last one only signs in
	r.step("signing up %d users (e-mail codes from the dev outbox, card 4242…)", n)
	t0 := time.Now()
	users, err := client.SetUpUsers(ctx, randomID(), n, 8, true)
	if err != nil {
		r.fail("users", "", err)
		r.step("could not set up users: %v", err)
		r.memoryAfter(ctx, ready, idle)
		return
	}
	r.raw["user_setup_seconds"] = time.Since(t0).Seconds()
	loadUsers := users[:o.Clients]
	pool := &userPool{users: users[:o.StreamUsers], next: o.Clients}

	// 5. Sign-in, one at a time on the idle stack.
	r.signIn(ctx, users[n-1])

	// 2 at the levels other than -clients, then 1a and 2 at -clients, the target level.
	levels := r.createAtOtherLevels(ctx, pool, pg)
	transfer, haveTransfer := r.createAtTarget(ctx, loadUsers, pg)
	for _, lv := range levels {
		r.add(levelFigures(lv, transfer, haveTransfer)...)
	}

	// 2b and 2c: created and completed, sustained; 2d: senders with a long history.
	r.sustained(ctx, ready, loadUsers, transfer, pg.usage["transfer"], haveTransfer)
	if o.HeavySenders > 0 {
		r.heavy(ctx, ready, pool.take(o.HeavySenders), pool.take(o.HeavySenders))
	}

	// 1b, then 3. The history page.
	r.historyPage(ctx, loadUsers, pg)

	// 4. Live events, lowest level first.
	r.liveEvents(ctx, ready, pool)

	r.memoryAfter(ctx, ready, idle)
}

// userPool hands out the stream users to the phases that need users of their own: the target
// level's senders are the first -clients, each other level (and each live-event level below
// -streams) takes the next ones.
type userPool struct {
	users []*User
	next  int
}

func (p *userPool) take(k int) []*User {
	out := make([]*User, k)
	for i := range out {
		out[i] = p.users[(p.next+i)%len(p.users)]
	}
	p.next += k
	return out
}

// randomID sets this run's users' e-mail addresses apart from any other run's.
func randomID() string {
	return fmt.Sprintf("%x", time.Now().UnixNano()&0xffffffffff)
}
