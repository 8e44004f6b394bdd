package checker

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

// cornerX is violated by the walks that reach (k, 0): those that take incX
// k times before any incY.
func cornerX(k int) Property[pt] {
	return Property[pt]{Name: "NotCornerX", Kind: Invariant, Check: func(s pt) error {
		if s.X == k && s.Y == 0 {
			return fmt.Errorf("at (%d,0)", k)
		}
		return nil
	}}
}

// TestWalkOwnsShardsEqualWhole: a campaign split by WalkOptions.Owns into
// shards (i mod 3 = K) runs every walk exactly as one run that owns every
// index does, keeps going past violating walks, and reports the lowest
// violating walk it owns; without Owns the campaign stops at its lowest
// violating walk, which is the shards' lowest.
func TestWalkOwnsShardsEqualWhole(t *testing.T) {
	g := &grid{N: 3, props: []Property[pt]{cornerX(2)}}
	const walks = 60
	all := Walk[pt](g, WalkOptions{Walks: walks, Seed: 5, Workers: 3, Owns: func(int) bool { return true }})
	if all.Err != nil || all.Walks != walks || len(all.PerWalk) != walks {
		t.Fatalf("owning every walk: err=%v walks=%d", all.Err, all.Walks)
	}
	violating := 0
	for _, st := range all.PerWalk {
		if st.Violated {
			violating++
		}
	}
	if violating < 2 || violating == walks {
		t.Fatalf("%d of %d walks violate: the test needs some, not all", violating, walks)
	}
	plain := Walk[pt](g, WalkOptions{Walks: walks, Seed: 5, Workers: 2})
	if plain.ViolationWalk != all.ViolationWalk || plain.Walks != all.ViolationWalk+1 {
		t.Fatalf("plain campaign: violation at walk %d, %d walks; owning all: violation at %d", plain.ViolationWalk, plain.Walks, all.ViolationWalk)
	}
	a, _ := json.Marshal(plain.Violation)
	if b, _ := json.Marshal(all.Violation); string(a) != string(b) {
		t.Fatalf("the lowest violating walk's trace differs:\n%s\n%s", a, b)
	}
	lowest := walks
	for k := range 3 {
		sh := Walk[pt](g, WalkOptions{Walks: walks, Seed: 5, Workers: 2, Owns: func(i int) bool { return i%3 == k }})
		if sh.Err != nil || sh.Walks != walks {
			t.Fatalf("shard %d: err=%v walks=%d", k, sh.Err, sh.Walks)
		}
		for i, st := range sh.PerWalk {
			want := WalkStat{}
			if i%3 == k {
				want = all.PerWalk[i]
			}
			if !reflect.DeepEqual(st, want) {
				t.Fatalf("shard %d, walk %d: %+v, want %+v", k, i, st, want)
			}
		}
		if sh.Violation != nil {
			if sh.ViolationWalk%3 != k || !sh.PerWalk[sh.ViolationWalk].Violated {
				t.Fatalf("shard %d reports violating walk %d", k, sh.ViolationWalk)
			}
			lowest = min(lowest, sh.ViolationWalk)
		}
	}
	if lowest != all.ViolationWalk {
		t.Fatalf("lowest violating walk over the shards %d, want %d", lowest, all.ViolationWalk)
	}
}
