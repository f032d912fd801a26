package main

import (
	"slices"
	"testing"
)

func TestLevels(t *testing.T) {
	t.Parallel()
	var l intList
	if err := l.Set("8, 1,32,8"); err != nil {
		t.Fatal(err)
	}
	if got := otherLevels(l, 32); !slices.Equal(got, []int{1, 8}) {
		t.Fatalf("otherLevels = %v, want [1 8]", got)
	}
	if err := l.Set(""); err != nil || len(l) != 0 {
		t.Fatalf("empty list: %v, %v", l, err)
	}
	for _, bad := range []string{"0", "x", "1,-2"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	for n, want := range map[int]string{1: "1 sender", 8: "8 senders", 1000: "1,000 senders", 1234567: "1,234,567 senders"} {
		if got := count(n, "sender"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
