package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
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

// gateCtx is a context whose first Err call waits until release is closed,
// after closing started: it holds a search (and its checkpoint directory)
// for as long as a test needs.
type gateCtx struct {
	context.Context
	once             sync.Once
	started, release chan struct{}
}

func (g *gateCtx) Err() error {
	g.once.Do(func() {
		close(g.started)
		<-g.release
	})
	return nil
}

// TestCheckpointCLI: `ftcheck check -h` says which modes checkpoint and
// what a resume may change; a refused combination (--por without --dfs),
// a checkpoint path that is a file, a directory another search holds, a
// checkpoint with 4 bytes flipped in its middle or truncated, and a resume
// with other properties each exit 2 with one line on stderr (no progress
// line), before any search work; an intact checkpoint resumes with other
// --workers and says that its times are cumulative.
func TestCheckpointCLI(t *testing.T) {
	_, help, _ := ftcheck(t, "check", "era", "-h")
	for _, w := range []string{"Works with BFS without --por or --whole-states, and with --dfs", "--workers may change", "cumulative"} {
		if !strings.Contains(help, w) {
			t.Errorf("check era -h does not say %q", w)
		}
	}
	era := []string{"check", "era", "--n", "3", "--crashes", "2"}
	refused := func(name, want string, args ...string) {
		t.Helper()
		code, _, errs := ftcheck(t, append(append([]string{}, era...), args...)...)
		if code != 2 || !strings.Contains(errs, want) || strings.Count(errs, "\n") != 1 || strings.Contains(errs, "progress:") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", name, code, errs, want)
		}
	}
	tmp := t.TempDir()
	refused("--por", "drop --por, or add --dfs", "--por", "--checkpoint", filepath.Join(tmp, "por"))
	if _, err := os.Stat(filepath.Join(tmp, "por")); err == nil {
		t.Error("a refused --checkpoint directory was created")
	}
	file := filepath.Join(tmp, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	refused("a file", "not a directory", "--checkpoint", file)

	dir := filepath.Join(tmp, "ck")
	if code, _, errs := ftcheck(t, append(append([]string{}, era...), "--checkpoint", dir, "--checkpoint-every", "1ns", "--max-states", "3000", "--quiet")...); code == 2 {
		t.Fatalf("the checkpointing run: exit %d, %s", code, errs)
	}
	good, err := os.ReadFile(filepath.Join(dir, "checkpoint.bin"))
	if err != nil {
		t.Fatal(err)
	}

	p, err := registry.Lookup("era")
	if err != nil {
		t.Fatal(err)
	}
	r, err := p.Build(era[2:])
	if err != nil {
		t.Fatal(err)
	}
	g := &gateCtx{Context: context.Background(), started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan *checker.Result)
	go func() { done <- r.BFS(checker.Options{Context: g, CheckpointDir: dir, CheckpointEvery: time.Hour}) }()
	select {
	case <-g.started:
	case res := <-done:
		t.Fatalf("the holding search did not start: %s %v", res.Stop, res.Err)
	}
	refused("a locked directory", "is in use", "--resume", dir, "--checkpoint", dir)
	close(g.release)
	if res := <-done; res.Err != nil {
		t.Fatal(res.Err)
	}

	mid := len(good) / 2
	flipped := append([]byte(nil), good...)
	for i := mid; i < mid+4; i++ {
		flipped[i] ^= 0xff
	}
	for name, b := range map[string][]byte{"4 bytes flipped": flipped, "truncated": good[:mid]} {
		bad := t.TempDir()
		if err := os.WriteFile(filepath.Join(bad, "checkpoint.bin"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		refused(name, "checkpoint.bin is damaged", "--resume", bad)
	}
	refused("another property", "this search selects termination", "--resume", dir, "--property", "termination")

	code, out, errs := ftcheck(t, append(append([]string{}, era...), "--resume", dir, "--workers", "1", "--quiet")...)
	if code != 0 || !strings.Contains(out, "resumed: true (seconds and generated/s are cumulative") || !strings.Contains(out, "complete=true") {
		t.Fatalf("resume with --workers 1: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, errs = ftcheck(t, append(append([]string{}, era...), "--resume", dir, "--json", "--quiet")...)
	var sum struct {
		Seconds        float64  `json:"seconds"`
		ResumedSeconds *float64 `json:"resumed_seconds"`
	}
	if err := json.Unmarshal([]byte(out), &sum); code != 0 || err != nil || sum.ResumedSeconds == nil || *sum.ResumedSeconds <= 0 || sum.Seconds < *sum.ResumedSeconds {
		t.Fatalf("resume --json: exit %d, %v, stdout %q, stderr %q; want resumed_seconds > 0 and within seconds", code, err, out, errs)
	}
}
