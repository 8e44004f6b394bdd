package checker

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// ctorus is the grid on a torus (incX and incY wrap around modulo N, so
// every state has both actions and the graph is full of cycles), quiescent
// at (N-1, N-1), with the persistent set {incX} and a cancel after a given
// number of Apply calls (0: never).
type ctorus struct {
	cgrid
	after  int64
	n      atomic.Int64
	cancel context.CancelFunc
}

func (t *ctorus) Name() string { return fmt.Sprintf("torus n=%d", t.N) }
func (t *ctorus) Actions(s pt, buf []Action) []Action {
	return append(buf, Action{Kind: incX}, Action{Kind: incY})
}
func (t *ctorus) Apply(s pt, a Action) (pt, error) {
	if t.n.Add(1) == t.after {
		t.cancel()
	}
	switch a.Kind {
	case incX:
		s.X = (s.X + 1) % t.N
	case incY:
		s.Y = (s.Y + 1) % t.N
	default:
		return s, fmt.Errorf("%v not enabled", a)
	}
	return s, nil
}
func (t *ctorus) Quiescent(s pt) bool { return s.X == t.N-1 && s.Y == t.N-1 }
func (t *ctorus) Persistent(s pt, enabled []Action, buf []Action) []Action {
	return append(buf, Action{Kind: incX})
}

// notAt is the invariant "p is not reached", named after p.
func notAt(p pt) Property[pt] {
	return Property[pt]{Name: fmt.Sprintf("NotAt%d,%d", p.X, p.Y), Kind: Invariant, Check: func(s pt) error {
		if s == p {
			return fmt.Errorf("at %v", s)
		}
		return nil
	}}
}

// resumeUntilDone runs DFS on mk's model canceled at random points (a
// checkpoint every dfsCheckEvery generated states and at the cancel), each
// round resuming the last, until a round completes; it returns that round's
// result and the number of rounds.
func resumeUntilDone(t *testing.T, r *rand.Rand, mk func(after int64, cancel context.CancelFunc) Model[pt], opt Options, total int64) (*Result, int) {
	t.Helper()
	dir := t.TempDir()
	for round := 0; ; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		o := opt
		o.Context, o.CheckpointDir, o.CheckpointEvery = ctx, dir, time.Nanosecond
		if round > 0 {
			o.Resume = dir
		}
		got := DFS(mk(1+r.Int64N(max(total/3, 1)), cancel), o)
		cancel()
		if got.Err != nil && got.Stop != StopCanceled {
			t.Fatalf("round %d: %v", round, got.Err)
		}
		if got.Stop != StopCanceled {
			return got, round + 1
		}
		if got.Checkpoints == 0 {
			t.Fatalf("round %d: canceled without a checkpoint", round)
		}
		if round > 200 {
			t.Fatal("never completes")
		}
	}
}

// TestDFSCheckpointResume: DFS runs canceled at random points and resumed
// from their checkpoint, again and again until one completes, end with
// exactly the states, transitions, depth, stop reason, POR counts and
// counterexamples of an uninterrupted run: plain, with a violation that
// stops the search, with violations carried across checkpoints
// (ContinueAfterViolation), bounded by MaxDepth, with persistent sets and
// their stack proviso on a graph of cycles, and with lassos (asides and a
// livelock) on it.
func TestDFSCheckpointResume(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	gridM := func(n int, props ...Property[pt]) func(int64, context.CancelFunc) Model[pt] {
		return func(after int64, cancel context.CancelFunc) Model[pt] {
			return &canceling{cgrid: cgrid{grid: grid{N: n, props: props}}, after: after, cancel: cancel}
		}
	}
	torus := func(n int, props ...Property[pt]) func(int64, context.CancelFunc) Model[pt] {
		return func(after int64, cancel context.CancelFunc) Model[pt] {
			return &ctorus{cgrid: cgrid{grid: grid{N: n, props: props}}, after: after, cancel: cancel}
		}
	}
	for _, c := range []struct {
		name string
		mk   func(int64, context.CancelFunc) Model[pt]
		opt  Options
	}{
		{"grid", gridM(120), Options{}},
		{"grid-violation", gridM(120, notAt(pt{0, 120})), Options{}},
		{"grid-continue", gridM(120, xStepBelow(30), notAt(pt{60, 100}), notAt(pt{0, 120})), Options{ContinueAfterViolation: true}},
		{"grid-maxdepth", gridM(120), Options{MaxDepth: 150}},
		{"torus-por", torus(60), Options{POR: true}},
		{"torus-lassos", torus(60, sumBelow(100)), Options{Lassos: true, ContinueAfterViolation: true}},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := DFS(c.mk(0, nil), c.opt)
			if want.Err != nil {
				t.Fatal(want.Err)
			}
			got, rounds := resumeUntilDone(t, r, c.mk, c.opt, want.Transitions)
			if rounds < 2 || !got.Resumed {
				t.Fatalf("%d rounds, resumed %v: no resume tested", rounds, got.Resumed)
			}
			if got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth ||
				got.Stop != want.Stop || got.Slept != want.Slept || got.Reexpanded != want.Reexpanded ||
				!reflect.DeepEqual(got.Violations, want.Violations) {
				t.Fatalf("after %d rounds: %d/%d/%d/%s slept %d reexpanded %d, %d violations; uninterrupted %d/%d/%d/%s slept %d reexpanded %d, %d violations",
					rounds, got.States, got.Transitions, got.Depth, got.Stop, got.Slept, got.Reexpanded, len(got.Violations),
					want.States, want.Transitions, want.Depth, want.Stop, want.Slept, want.Reexpanded, len(want.Violations))
			}
			t.Logf("%d rounds: %d states, %d transitions, depth %d, %s, %d violations", rounds, got.States, got.Transitions, got.Depth, got.Stop, len(got.Violations))
		})
	}
}

// TestDFSCheckpointCorrupt: a truncated DFS checkpoint, one with a byte
// appended or changed anywhere, a BFS checkpoint and an empty file are
// refused with a clear error, never a panic.
func TestDFSCheckpointCorrupt(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	m := &ctorus{cgrid: cgrid{grid: grid{N: 60, props: []Property[pt]{sumBelow(1000)}}}, after: 1500, cancel: cancel}
	opt := Options{Lassos: true, ContinueAfterViolation: true}
	o := opt
	o.Context, o.CheckpointDir = ctx, dir
	res := DFS[pt](m, o)
	cancel()
	if res.Stop != StopCanceled || res.Checkpoints != 1 {
		t.Fatalf("stop %s, %d checkpoints", res.Stop, res.Checkpoints)
	}
	good, err := os.ReadFile(filepath.Join(dir, checkpointFile))
	if err != nil {
		t.Fatal(err)
	}
	resume := func(b []byte) *Result {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, checkpointFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		o := opt
		o.Resume = d
		return DFS[pt](&ctorus{cgrid: cgrid{grid: grid{N: 60, props: []Property[pt]{sumBelow(1000)}}}}, o)
	}
	if r := resume(good); r.Err != nil || !r.Resumed || !r.Complete && r.Stop != StopViolation {
		t.Fatalf("the good checkpoint: %s %v", r.Stop, r.Err)
	}
	step := max(1, len(good)/97)
	for n := 0; n < len(good); n += step {
		if r := resume(good[:n]); r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), "resume from") {
			t.Fatalf("truncated to %d of %d bytes: stop %s err %v", n, len(good), r.Stop, r.Err)
		}
	}
	if r := resume(append(good[:len(good):len(good)], 0)); r.Err == nil || !strings.Contains(r.Err.Error(), "damaged") {
		t.Fatalf("a byte appended: %v", r.Err)
	}
	rr := rand.New(rand.NewPCG(3, 3))
	for range 200 {
		b := append([]byte(nil), good...)
		i := rr.IntN(len(b))
		b[i] ^= byte(1 + rr.IntN(255))
		if r := resume(b); r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), "resume from") {
			t.Fatalf("byte %d of %d changed: stop %s err %v", i, len(b), r.Stop, r.Err)
		}
	}
	bfs := t.TempDir()
	if r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: bfs, CheckpointEvery: time.Nanosecond}); r.Checkpoints == 0 {
		t.Fatal("no BFS checkpoint")
	}
	if r := DFS[pt](&cgrid{grid: grid{N: 5}}, Options{Resume: bfs}); r.Err == nil || !strings.Contains(r.Err.Error(), "BFS checkpoint") {
		t.Fatalf("DFS resumed a BFS checkpoint: %v", r.Err)
	}
	if r := BFS[pt](&ctorus{cgrid: cgrid{grid: grid{N: 60}}}, Options{Resume: dir}); r.Err == nil || !strings.Contains(r.Err.Error(), "DFS checkpoint") {
		t.Fatalf("BFS resumed a DFS checkpoint: %v", r.Err)
	}
	if r := resume(nil); r.Err == nil || !strings.Contains(r.Err.Error(), "not a checkpoint") {
		t.Fatalf("empty file: %v", r.Err)
	}
}

// TestDFSCheckpointRefusals: no DFS checkpoint for a model that does not
// decode or with Eventually properties.
func TestDFSCheckpointRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []Model[pt]{&grid{N: 3}, &cgrid{grid: grid{N: 3}, noDecode: true}} {
		if r := DFS(m, Options{CheckpointDir: dir, CheckpointEvery: time.Second}); r.Stop != StopError || !strings.Contains(fmt.Sprint(r.Err), "Codec") {
			t.Fatalf("%s: stop %s err %v", m.Name(), r.Stop, r.Err)
		}
	}
	ev := Property[pt]{Name: "Ev", Kind: Eventually, Check: func(s pt) error { return nil }}
	if r := DFS[pt](&cgrid{grid: grid{N: 3, props: []Property[pt]{ev}}}, Options{CheckpointDir: dir}); r.Stop != StopError || !strings.Contains(fmt.Sprint(r.Err), "eventually property") {
		t.Fatalf("eventually: stop %s err %v", r.Stop, r.Err)
	}
}
