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

func TestFreeAddrsAreDistinctAndFree(t *testing.T) {
	t.Parallel()
	addrs, err := freeAddrs(20)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, a := range addrs {
		if seen[a] {
			t.Fatalf("%s handed out twice in %v", a, addrs)
		}
		seen[a] = true
		l, err := net.Listen("tcp", a) // released for the child to take
		if err != nil {
			t.Fatalf("%s is not free: %v", a, err)
		}
		l.Close()
	}
}
