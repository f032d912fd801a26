package main

import (
	"slices"
	"testing"
)

func TestIntList(t *testing.T) {
	t.Parallel()
	var l intList
	if err := l.Set("8, 1,32,8"); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l, intList{8, 1, 32, 8}) || l.String() != "8,1,32,8" {
		t.Fatalf("Set = %v (%s), want [8 1 32 8]", l, l.String())
	}
	if err := l.Set(""); err != nil || len(l) != 0 {
		t.Fatalf("empty list: %v, %v", l, err)
	}
	for _, bad := range []string{"0", "x", "1,-2"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
}
