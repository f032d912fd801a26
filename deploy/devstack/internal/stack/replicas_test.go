package stack

import (
	"net"
	"slices"
	"testing"
)

func TestReplicaNames(t *testing.T) {
	t.Parallel()
	for n, want := range map[int][]string{
		0: {"transfers"}, // absent from Config.Replicas
		1: {"transfers"},
		2: {"transfers-1", "transfers-2"},
	} {
		if got := replicaNames("transfers", n); !slices.Equal(got, want) {
			t.Errorf("replicaNames(transfers, %d) = %v, want %v", n, got, want)
		}
	}
}

func TestListenersAreDistinctAndHeld(t *testing.T) {
	t.Parallel()
	lns, err := listeners(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, l := range lns {
		a := l.Addr().String()
		if seen[a] {
			t.Fatalf("%s handed out twice", a)
		}
		seen[a] = true
		// Held until its child has it: nobody else can take the port in between.
		if other, err := net.Listen("tcp", a); err == nil {
			other.Close()
			t.Fatalf("%s could be taken while the stack held it", a)
		}
		l.Close()
	}
}
