package checker

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestSplitUnionIsWhole: on a grid whose states are reached by many paths
// (so that parts overlap), the union of the shards' visited sets is the
// unsharded visited set, fingerprint for fingerprint, for every split depth
// and shard count; every shard is complete, and the prefix is shared.
func TestSplitUnionIsWhole(t *testing.T) {
	g := &grid{N: 12}
	whole := BFS[pt](g, Options{Workers: 2, Split: &Split{Shard: 0, Shards: 1}})
	if !whole.Complete || whole.States != 13*13 {
		t.Fatalf("unsharded: complete=%v states=%d, want 169", whole.Complete, whole.States)
	}
	for _, depth := range []int{0, 1, 5, 30} {
		for _, n := range []int{2, 3, 7} {
			var sets [][]uint64
			var all []uint64
			for k := range n {
				r := BFS[pt](g, Options{Workers: 2, Split: &Split{Shard: k, Shards: n, Depth: depth}})
				if !r.Complete || r.Err != nil {
					t.Fatalf("depth %d shard %d/%d: complete=%v err=%v", depth, k, n, r.Complete, r.Err)
				}
				if int64(len(r.Fingerprints)) != r.States || !slices.IsSorted(r.Fingerprints) {
					t.Fatalf("depth %d shard %d/%d: %d fingerprints for %d states, sorted=%v", depth, k, n, len(r.Fingerprints), r.States, slices.IsSorted(r.Fingerprints))
				}
				wantPrefix := int64(min(depth+1, 25) * (min(depth+1, 25) + 1) / 2)
				if depth < 13 && r.SplitStates != wantPrefix {
					t.Errorf("depth %d shard %d/%d: %d prefix states, want %d (levels 0…%d of the grid)", depth, k, n, r.SplitStates, wantPrefix, depth)
				}
				sets = append(sets, r.Fingerprints)
				all = append(all, r.Fingerprints...)
			}
			if depth < 24 && slices.IndexFunc(sets, func(s []uint64) bool { return int64(len(s)) < whole.States }) < 0 {
				t.Errorf("depth %d, %d shards: every shard explored every state", depth, n)
			}
			var streams []func() (uint64, bool)
			for _, s := range sets {
				streams = append(streams, SliceStream(s))
			}
			union, overlap := MergeFingerprints(streams)
			slices.Sort(all)
			all = slices.Compact(all)
			if union != whole.States || !slices.Equal(all, whole.Fingerprints) {
				t.Errorf("depth %d, %d shards: union %d states, unsharded %d", depth, n, union, whole.States)
			}
			if overlap < 0 || overlap != int64(len(slices.Concat(sets...)))-union {
				t.Errorf("depth %d, %d shards: overlap %d", depth, n, overlap)
			}
		}
	}
}

// TestSplitViolation: an invariant that fails beyond the split depth is
// found by the shard owning the path to it, with a counterexample as short
// as the unsharded search's.
func TestSplitViolation(t *testing.T) {
	g := &grid{N: 6, props: []Property[pt]{sumBelow(9)}}
	whole := BFS[pt](g, Options{Workers: 1})
	if len(whole.Violations) != 1 {
		t.Fatalf("unsharded: %d violations", len(whole.Violations))
	}
	shortest, found := -1, 0
	for k := range 4 {
		r := BFS[pt](g, Options{Workers: 1, Split: &Split{Shard: k, Shards: 4, Depth: 3}})
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		for _, tr := range r.Violations {
			found++
			if _, err := Replay[pt](g, tr); err == nil {
				t.Errorf("shard %d: its counterexample does not replay to a violation", k)
			}
			if shortest < 0 || len(tr.Steps) < shortest {
				shortest = len(tr.Steps)
			}
		}
	}
	if found == 0 || shortest != len(whole.Violations[0].Steps) {
		t.Errorf("%d shard violations, shortest %d steps; unsharded %d steps", found, shortest, len(whole.Violations[0].Steps))
	}
}

// TestSplitRefusals: the searches a split cannot make exact are refused.
func TestSplitRefusals(t *testing.T) {
	g := &grid{N: 3}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Mode: DepthFirst}, "breadth-first"},
		{Options{POR: true}, "partial-order"},
		{Options{CheckpointDir: t.TempDir(), CheckpointEvery: 1}, "checkpoints"},
	} {
		c.opt.Split = &Split{Shard: 0, Shards: 2}
		r := Search[pt](g, c.opt)
		if r.Err == nil || !strings.Contains(r.Err.Error(), c.want) {
			t.Errorf("%+v: err %v, want one that mentions %q", c.opt, r.Err, c.want)
		}
	}
}

func TestParseShard(t *testing.T) {
	for s, ok := range map[string]bool{"0/1": true, "3/16": true, "16/16": false, "-1/4": false, "1/0": false, "1": false, "a/b": false} {
		_, _, err := ParseShard(s)
		if (err == nil) != ok {
			t.Errorf("ParseShard(%q): err %v", s, err)
		}
	}
}

// TestFingerprintCodec: a sorted set written by WriteFingerprints reads
// back equal, in about log2(2^64/n)/7 bytes a fingerprint; a truncated
// stream or an unsorted set is an error.
func TestFingerprintCodec(t *testing.T) {
	g := &grid{N: 60}
	r := BFS[pt](g, Options{Workers: 1, Split: &Split{Shard: 0, Shards: 1}})
	var buf bytes.Buffer
	n, err := WriteFingerprints(&buf, r.Fingerprints)
	if err != nil || n != int64(buf.Len()) {
		t.Fatalf("wrote %d bytes (%d in the buffer), err %v", n, buf.Len(), err)
	}
	if per := float64(n) / float64(len(r.Fingerprints)); per < 7 || per > 8.5 {
		t.Errorf("%.2f bytes per fingerprint for %d, want about 7", per, len(r.Fingerprints))
	}
	fr := NewFingerprintReader(bytes.NewReader(buf.Bytes()), r.States)
	var back []uint64
	for fp, ok := fr.Next(); ok; fp, ok = fr.Next() {
		back = append(back, fp)
	}
	if fr.Err() != nil || !slices.Equal(back, r.Fingerprints) {
		t.Fatalf("read back %d of %d fingerprints, err %v", len(back), len(r.Fingerprints), fr.Err())
	}
	short := NewFingerprintReader(bytes.NewReader(buf.Bytes()[:buf.Len()-3]), r.States)
	for _, ok := short.Next(); ok; _, ok = short.Next() {
	}
	if short.Err() == nil {
		t.Error("a truncated set read without error")
	}
	if _, err := WriteFingerprints(&buf, []uint64{5, 3}); err == nil {
		t.Error("an unsorted set written without error")
	}
}

// TestSplitTransitionsExact: the out-degrees of the union of the shards'
// expanded states, plus the initial states, are the unsharded search's
// transition count, for every split depth and shard count, although the
// shards together generate more (a state reached by two shards is expanded
// by both).
func TestSplitTransitionsExact(t *testing.T) {
	g := &grid{N: 12}
	whole := BFS[pt](g, Options{Workers: 2})
	one := BFS[pt](g, Options{Workers: 2, Split: &Split{Shard: 0, Shards: 1}})
	var outs int64
	for _, e := range one.Expanded {
		outs += int64(e.Out)
	}
	if one.InitTransitions+outs != whole.Transitions || one.Transitions != whole.Transitions {
		t.Fatalf("one shard: %d initial + %d out-degrees, %d generated; unsharded %d", one.InitTransitions, outs, one.Transitions, whole.Transitions)
	}
	for _, depth := range []int{0, 3, 8} {
		for _, n := range []int{2, 5} {
			var streams []func() (Expansion, bool)
			var generated int64
			for k := range n {
				r := BFS[pt](g, Options{Workers: 2, Split: &Split{Shard: k, Shards: n, Depth: depth}})
				if !sortedFP(r.Expanded) {
					t.Fatalf("depth %d shard %d/%d: expansions not sorted", depth, k, n)
				}
				generated += r.Transitions
				streams = append(streams, expansionStream(r.Expanded))
			}
			sum, err := MergeExpansions(streams)
			if err != nil || one.InitTransitions+sum != whole.Transitions {
				t.Errorf("depth %d, %d shards: %d + %d merged transitions (err %v), unsharded %d", depth, n, one.InitTransitions, sum, err, whole.Transitions)
			}
			if depth < 8 && generated <= whole.Transitions {
				t.Errorf("depth %d, %d shards: the shards generated %d, no more than the unsharded %d: no overlap to test", depth, n, generated, whole.Transitions)
			}
		}
	}
	bad := []Expansion{{FP: one.Expanded[0].FP, Out: one.Expanded[0].Out + 1}}
	if _, err := MergeExpansions([]func() (Expansion, bool){expansionStream(one.Expanded), expansionStream(bad)}); err == nil {
		t.Error("two out-degrees for one state merged without error")
	}
}

func sortedFP(es []Expansion) bool {
	for i := 1; i < len(es); i++ {
		if es[i].FP <= es[i-1].FP {
			return false
		}
	}
	return true
}

func expansionStream(es []Expansion) func() (Expansion, bool) {
	i := 0
	return func() (Expansion, bool) {
		if i == len(es) {
			return Expansion{}, false
		}
		i++
		return es[i-1], true
	}
}

func TestExpansionCodec(t *testing.T) {
	r := BFS[pt](&grid{N: 30}, Options{Workers: 1, Split: &Split{Shard: 0, Shards: 1}})
	var buf bytes.Buffer
	n, err := WriteExpansions(&buf, r.Expanded)
	if err != nil || n != int64(buf.Len()) || len(r.Expanded) == 0 {
		t.Fatalf("wrote %d bytes (%d in the buffer) for %d expansions, err %v", n, buf.Len(), len(r.Expanded), err)
	}
	er := NewExpansionReader(bytes.NewReader(buf.Bytes()), int64(len(r.Expanded)))
	var back []Expansion
	for e, ok := er.Next(); ok; e, ok = er.Next() {
		back = append(back, e)
	}
	if er.Err() != nil || !slices.Equal(back, r.Expanded) {
		t.Fatalf("read back %d of %d expansions, err %v", len(back), len(r.Expanded), er.Err())
	}
	short := NewExpansionReader(bytes.NewReader(buf.Bytes()[:buf.Len()-1]), int64(len(r.Expanded)))
	for _, ok := short.Next(); ok; _, ok = short.Next() {
	}
	if short.Err() == nil {
		t.Error("a truncated list read without error")
	}
	if _, err := WriteExpansions(&buf, []Expansion{{FP: 5}, {FP: 5}}); err == nil {
		t.Error("a repeated fingerprint written without error")
	}
}
