package checker

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
)

func TestWalkNoViolation(t *testing.T) {
	r := Walk[pt](&grid{N: 3}, WalkOptions{Walks: 40, Seed: 7, Workers: 3})
	if r.Err != nil || r.Violation != nil || r.Walks != 40 || len(r.PerWalk) != 40 {
		t.Fatalf("err=%v violation=%v walks=%d", r.Err, r.Violation, r.Walks)
	}
	// Every walk reaches (3,3) in exactly 6 steps and stops there.
	if r.Steps != 40*6 {
		t.Fatalf("steps=%d, want 240", r.Steps)
	}
	for i, w := range r.PerWalk {
		if w != (WalkStat{Steps: 6, Quiescent: true}) {
			t.Fatalf("walk %d: %+v", i, w)
		}
	}
	r = Walk[pt](&grid{N: 3}, WalkOptions{Walks: 2, MaxSteps: 4})
	if r.Steps != 8 || r.PerWalk[0].Quiescent {
		t.Fatalf("MaxSteps not honoured: %+v", r.PerWalk)
	}
}

func TestWalkViolationDeterministic(t *testing.T) {
	g := &grid{N: 8, props: []Property[pt]{sumBelow(6)}}
	var want []byte
	for _, w := range []int{1, 2, 5} {
		r := Walk[pt](g, WalkOptions{Walks: 20, Seed: 42, Workers: w})
		if r.Violation == nil || r.ViolationWalk != 0 || r.Walks != 1 {
			t.Fatalf("workers=%d: violation=%v walk=%d walks=%d", w, r.Violation, r.ViolationWalk, r.Walks)
		}
		tr := r.Violation
		if tr.Seed == nil || *tr.Seed != WalkSeed(42, 0) || tr.Violation.Steps != 6 || len(tr.Steps) != 6 {
			t.Fatalf("trace %v", tr)
		}
		b, _ := json.Marshal(tr)
		if want == nil {
			want = b
		} else if string(b) != string(want) {
			t.Fatalf("workers=%d: trace differs:\n%s\n%s", w, b, want)
		}
		if _, err := Replay[pt](g, tr); !isViolation(err, tr.Violation) {
			t.Fatalf("replay: %v", err)
		}
	}
	// Another seed gives another schedule (with overwhelming probability).
	r := Walk[pt](g, WalkOptions{Walks: 1, Seed: 43})
	if b, _ := json.Marshal(r.Violation); string(b) == string(want) {
		t.Fatalf("seed ignored")
	}
}

func TestWalkLowestViolatingWalk(t *testing.T) {
	g := greedy{&grid{N: 2, props: []Property[pt]{sumBelow(3)}}}
	r := Walk[pt](g, WalkOptions{Walks: 5, Seed: 1, Workers: 2})
	if r.Violation == nil || r.ViolationWalk != 0 {
		t.Fatalf("no violation")
	}
	// The sampler always prefers incX: incX, incX, incY.
	if got := actionKinds(r.Violation); !reflect.DeepEqual(got, []uint8{1, 1, 2}) {
		t.Fatalf("steps %v", got)
	}
}

func TestWalkApplyError(t *testing.T) {
	// Uniform walks on a 3×3 grid: some walk takes incY at (1,1) and fails.
	var first *WalkResult
	for _, w := range []int{1, 4} {
		r := Walk[pt](&grid{N: 2, badApply: true}, WalkOptions{Walks: 50, Workers: w})
		if r.Err == nil || r.Walks == 50 || r.Violation != nil {
			t.Fatalf("err=%v walks=%d", r.Err, r.Walks)
		}
		if first != nil && (first.Walks != r.Walks || first.Err.Error() != r.Err.Error()) {
			t.Fatalf("workers=%d: %d %v vs %d %v", w, r.Walks, r.Err, first.Walks, first.Err)
		}
		first = r
	}
}

func isViolation(err error, want *Violation) bool {
	var ve *ViolationError
	return errors.As(err, &ve) && reflect.DeepEqual(&ve.Violation, want)
}

// cancelAfter is a context whose Err is Canceled from its k-th call on.
type cancelAfter struct {
	context.Context
	k atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.k.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestWalkCanceled: a canceled Walk returns the walks finished before the
// cancellation (a prefix of the walk indices, each whole), Canceled and no
// error.
func TestWalkCanceled(t *testing.T) {
	for _, w := range []int{1, 3} {
		// Each walk of the 3×3 grid asks the context 6 times.
		ctx := &cancelAfter{Context: context.Background()}
		ctx.k.Store(6*10 + 2)
		r := Walk[pt](&grid{N: 3}, WalkOptions{Walks: 40, Seed: 7, Workers: w, Context: ctx})
		if r.Err != nil || !r.Canceled || r.Walks >= 40 || r.Walks < 10-w || len(r.PerWalk) != r.Walks || r.Steps != int64(6*r.Walks) {
			t.Fatalf("workers=%d: err=%v canceled=%v walks=%d steps=%d", w, r.Err, r.Canceled, r.Walks, r.Steps)
		}
		for i, st := range r.PerWalk {
			if st != (WalkStat{Steps: 6, Quiescent: true}) {
				t.Fatalf("workers=%d: walk %d: %+v", w, i, st)
			}
		}
	}
	r := Walk[pt](&grid{N: 3}, WalkOptions{Walks: 40, Seed: 7, Context: context.Background()})
	if r.Canceled || r.Walks != 40 {
		t.Fatalf("uncanceled: canceled=%v walks=%d", r.Canceled, r.Walks)
	}
}
