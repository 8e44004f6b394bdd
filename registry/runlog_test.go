package registry

import (
	"context"
	"encoding/json"
	"testing"
)

// TestRunLogShardsAndReplays: shards own disjoint run indices that cover
// every run; their records, merged, are replayed in the order the
// sub-campaigns began; a nil log owns every run and records nothing.
func TestRunLogShardsAndReplays(t *testing.T) {
	const runs, shards = 10, 3
	var merged []map[int]json.RawMessage
	owners := make([]int, runs)
	for k := range shards {
		l := NewRunLog(k, shards)
		if RunLogOf(WithRunLog(context.Background(), l)) != l {
			t.Fatal("WithRunLog/RunLogOf do not round-trip")
		}
		for c := range 2 {
			if got := l.Begin(); got != c {
				t.Fatalf("shard %d: sub-campaign %d numbered %d", k, c, got)
			}
			for i := range runs {
				if l.Owns(i) {
					owners[i]++
					if err := l.Record(c, i, 100*c+i); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		if !l.Used() {
			t.Errorf("shard %d: not used", k)
		}
		for c, recs := range l.Campaigns {
			if c == len(merged) {
				merged = append(merged, map[int]json.RawMessage{})
			}
			for i, r := range recs {
				merged[c][i] = r
			}
		}
	}
	for i, n := range owners {
		if n != 2 { // once per sub-campaign
			t.Errorf("run %d owned %d times over 2 sub-campaigns, want 2", i, n)
		}
	}
	r := ReplayLog(merged)
	for c := range 2 {
		if got := r.Begin(); got != c || !r.Replaying() {
			t.Fatalf("replay: sub-campaign %d numbered %d, replaying=%v", c, got, r.Replaying())
		}
		for i := range runs {
			var v int
			if !r.Owns(i) {
				t.Fatalf("replay does not own run %d", i)
			}
			if err := r.Replay(c, i, &v); err != nil || v != 100*c+i {
				t.Errorf("replay of run %d of %d: %d, %v", i, c, v, err)
			}
		}
	}
	var v int
	if err := r.Replay(0, runs, &v); err == nil {
		t.Error("replay of a run no shard recorded: no error")
	}
	var none *RunLog
	if !none.Owns(7) || none.Begin() != 0 || none.Record(0, 7, 1) != nil || none.Replaying() {
		t.Error("a nil log must own every run and record nothing")
	}
}
