package checker

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// canceling is a cgrid whose Apply cancels the search's context after a
// given number of calls: a stop at an arbitrary point of a level.
type canceling struct {
	cgrid
	after  int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (g *canceling) Apply(s pt, a Action) (pt, error) {
	if g.n.Add(1) == g.after {
		g.cancel()
	}
	return g.cgrid.Apply(s, a)
}

// TestCheckpointResume: a run canceled at random points (with a checkpoint
// every level, spilling, on two workers) and resumed from its directory,
// again and again until it completes, ends with exactly the counts, depth
// and counterexamples of an uninterrupted run.
func TestCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, props := range [][]Property[pt]{nil, {sumBelow(250)}} {
		want := BFS[pt](&cgrid{grid: grid{N: 150, props: props}}, Options{Workers: 2})
		dir, spill := t.TempDir(), t.TempDir()
		var got *Result
		for round := 0; ; round++ {
			ctx, cancel := context.WithCancel(context.Background())
			g := &canceling{cgrid: cgrid{grid: grid{N: 150, props: props}}, after: 1 + r.Int64N(want.Transitions/3), cancel: cancel}
			opt := Options{Workers: 2, Context: ctx, CheckpointDir: dir, CheckpointEvery: time.Nanosecond,
				SpillDir: spill, QueueMemory: 1}
			if round > 0 {
				opt.Resume = dir
			}
			got = BFS[pt](g, opt)
			cancel()
			if got.Err != nil && got.Stop != StopCanceled {
				t.Fatalf("round %d: %v", round, got.Err)
			}
			if got.Stop != StopCanceled {
				break
			}
			if got.Checkpoints == 0 {
				t.Fatalf("round %d: canceled without a checkpoint", round)
			}
			if round > 50 {
				t.Fatal("never completes")
			}
		}
		if !got.Resumed || got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth ||
			got.Stop != want.Stop || got.Queued != want.Queued || got.QueueBytes != want.QueueBytes ||
			!reflect.DeepEqual(got.Violations, want.Violations) {
			t.Fatalf("resumed: resumed %v %d/%d/%d/%s queued %d/%d; uninterrupted %d/%d/%d/%s queued %d/%d",
				got.Resumed, got.States, got.Transitions, got.Depth, got.Stop, got.Queued, got.QueueBytes,
				want.States, want.Transitions, want.Depth, want.Stop, want.Queued, want.QueueBytes)
		}
	}
}

// TestCheckpointRefusals: no checkpoint without the compact frontier; a
// resume from a directory without a checkpoint, or of another model's
// checkpoint, is an error.
func TestCheckpointRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		m   Model[pt]
		opt Options
	}{
		{&grid{N: 3}, Options{CheckpointDir: dir, CheckpointEvery: time.Second}},
		{&cgrid{grid: grid{N: 3}}, Options{CheckpointDir: dir, CheckpointEvery: time.Second, WholeStates: true}},
		{&cgrid{grid: grid{N: 3}}, Options{Resume: dir, Mode: DepthFirst}},
	} {
		r := Search(c.m, c.opt)
		if r.Stop != StopError || r.Err == nil {
			t.Fatalf("%+v: stop %s err %v", c.opt, r.Stop, r.Err)
		}
	}
	if r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: dir, CheckpointEvery: time.Nanosecond}); r.Checkpoints == 0 || !r.Complete {
		t.Fatalf("checkpoints %d", r.Checkpoints)
	}
	if r := BFS[pt](&cgrid{grid: grid{N: 6}}, Options{Resume: dir}); r.Err == nil || !strings.Contains(r.Err.Error(), "grid n=5") {
		t.Fatalf("resumed another model's checkpoint: %v", r.Err)
	}
}
