package main

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/registry"
)

// countdown is a context canceled at its k-th Err call: DFS asks once per
// check (every 1024 generated states), so it stops a search at a chosen
// point, deterministically.
type countdown struct {
	context.Context
	k atomic.Int64
}

func (c *countdown) Err() error {
	if c.k.Add(-1) <= 0 {
		return context.Canceled
	}
	return nil
}

// TestDFSCheckpointEnvModel: ERA N=3 c=2 (an env model) under DFS, plain,
// with symmetry, with persistent sets and with lassos, stopped at random
// points and resumed from its checkpoint until a run completes, ends with
// the states, transitions, depth, stop reason, POR counts and violations of
// an uninterrupted DFS; a truncated or garbage checkpoint makes `ftcheck check
// --resume` exit 2 with a message.
func TestDFSCheckpointEnvModel(t *testing.T) {
	p, err := registry.Lookup("era")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--n", "3", "--crashes", "2"}
	r, err := p.Build(args)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	var dir string
	for _, base := range []checker.Options{{}, {Symmetry: true}, {POR: true}, {Lassos: true, ContinueAfterViolation: true}} {
		base.Mode = checker.DepthFirst
		want := r.BFS(base)
		if want.Err != nil || want.Transitions < 4*1024 {
			t.Fatalf("%+v uninterrupted: %v, %d transitions", base, want.Err, want.Transitions)
		}
		dir = t.TempDir()
		var got *checker.Result
		rounds := 0
		for ; ; rounds++ {
			ctx := &countdown{Context: context.Background()}
			ctx.k.Store(1 + rng.Int64N(max(want.Transitions/1024/3, 1)))
			opt := base
			opt.Context, opt.CheckpointDir, opt.CheckpointEvery = ctx, dir, time.Nanosecond
			if rounds > 0 {
				opt.Resume = dir
			}
			got = r.BFS(opt)
			if got.Stop != checker.StopCanceled {
				break
			}
			if rounds > 100 {
				t.Fatal("never completes")
			}
		}
		if got.Err != nil || rounds == 0 || !got.Resumed || got.States != want.States || got.Transitions != want.Transitions ||
			got.Depth != want.Depth || got.Stop != want.Stop || got.POR != want.POR || got.Slept != want.Slept ||
			got.Reexpanded != want.Reexpanded || len(got.Violations) != len(want.Violations) {
			t.Fatalf("%+v after %d resumes: %d/%d/%d/%s %d violations err %v; uninterrupted %d/%d/%d/%s %d violations",
				base, rounds, got.States, got.Transitions, got.Depth, got.Stop, len(got.Violations), got.Err,
				want.States, want.Transitions, want.Depth, want.Stop, len(want.Violations))
		}
		t.Logf("symmetry %v por %v (%v) lassos %v: %d resumes: %d states, %d transitions, depth %d, %s",
			base.Symmetry, base.POR, got.POR, base.Lassos, rounds, got.States, got.Transitions, got.Depth, got.Stop)
	}

	good, err := os.ReadFile(filepath.Join(dir, "checkpoint.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{good[:len(good)/2], good[:30], []byte("garbage")} {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, "checkpoint.bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, errs := ftcheck(t, append(append([]string{"check", "era"}, args...), "--dfs", "--quiet", "--resume", bad)...)
		if code != 2 || !strings.Contains(errs, "resume from") {
			t.Fatalf("%d-byte checkpoint: exit %d, stderr %q", len(b), code, errs)
		}
	}
}
