package checker

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// gridCheckpoint runs BFS on the grid of side 150 with props, canceled
// after `after` Apply calls, with a checkpoint at every level start and at
// the cancel, and returns the directory holding the checkpoint.
func gridCheckpoint(t *testing.T, after int64, props ...Property[pt]) string {
	t.Helper()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &canceling{cgrid: cgrid{grid: grid{N: 150, props: props}}, after: after, cancel: cancel}
	r := BFS[pt](g, Options{Workers: 2, Context: ctx, CheckpointDir: dir, CheckpointEvery: time.Nanosecond})
	if r.Stop != StopCanceled || r.Checkpoints == 0 {
		t.Fatalf("stop %s, %d checkpoints, err %v", r.Stop, r.Checkpoints, r.Err)
	}
	return dir
}

// TestCheckpointDamaged: a BFS checkpoint with bytes changed in its
// middle, truncated, with a byte appended, or of the older format is
// refused with one line, before the search does any work (no state
// generated, no progress report); the intact one resumes.
func TestCheckpointDamaged(t *testing.T) {
	good, err := os.ReadFile(filepath.Join(gridCheckpoint(t, 3000), checkpointFile))
	if err != nil {
		t.Fatal(err)
	}
	resume := func(b []byte) (*Result, int) {
		d := t.TempDir()
		if err := os.WriteFile(filepath.Join(d, checkpointFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		reports := 0
		r := BFS[pt](&cgrid{grid: grid{N: 150}}, Options{Workers: 2, Resume: d, Progress: func(Stats) { reports++ }})
		return r, reports
	}
	if r, _ := resume(good); r.Err != nil || !r.Complete || !r.Resumed {
		t.Fatalf("the intact checkpoint: %s %v", r.Stop, r.Err)
	}
	mid := len(good) / 2
	flipped := append([]byte(nil), good...)
	for i := mid; i < mid+4; i++ {
		flipped[i] ^= 0xff
	}
	oneBit := append([]byte(nil), good...)
	oneBit[mid+7] ^= 0x10
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"4 bytes flipped in the middle", flipped, "damaged"},
		{"1 bit flipped in the middle", oneBit, "damaged"},
		{"truncated to half", good[:mid], "damaged"},
		{"last byte cut", good[:len(good)-1], "damaged"},
		{"a byte appended", append(good[:len(good):len(good)], 0), "damaged"},
		{"format 1", append([]byte("ftkernel-checkpoint-1\n"), good[len(checkpointMagic):]...), "format 1"},
		{"a DFS checkpoint", append([]byte(dfsCheckpointMagic), good[len(checkpointMagic):]...), "--dfs"},
	} {
		r, reports := resume(c.b)
		msg := ""
		if r.Err != nil {
			msg = r.Err.Error()
		}
		if r.Stop != StopError || !strings.Contains(msg, c.want) || !strings.Contains(msg, "resume from") || strings.Contains(msg, "\n") {
			t.Errorf("%s: stop %s, err %q", c.name, r.Stop, msg)
		}
		if r.Transitions != 0 || r.States != 0 || reports != 0 {
			t.Errorf("%s: refused after %d generated, %d states, %d progress reports", c.name, r.Transitions, r.States, reports)
		}
	}
}

// gate is a cgrid whose first Apply waits until release is closed, after
// closing started: a search that holds its checkpoint directory as long as
// a test needs.
type gate struct {
	cgrid
	once             sync.Once
	started, release chan struct{}
}

func (g *gate) Apply(s pt, a Action) (pt, error) {
	g.once.Do(func() {
		close(g.started)
		<-g.release
	})
	return g.cgrid.Apply(s, a)
}

// TestCheckpointLock: while a search resumes from a directory and writes
// its checkpoints there, a second search that would write checkpoints
// there, or resume from it, is refused with a message that names the
// directory; the first ends as an uninterrupted search; once it has ended
// the directory is free.
func TestCheckpointLock(t *testing.T) {
	want := BFS[pt](&cgrid{grid: grid{N: 150}}, Options{Workers: 2})
	dir := gridCheckpoint(t, 3000)
	g := &gate{cgrid: cgrid{grid: grid{N: 150}}, started: make(chan struct{}), release: make(chan struct{})}
	done := make(chan *Result)
	go func() {
		done <- BFS[pt](g, Options{Workers: 2, Resume: dir, CheckpointDir: dir, CheckpointEvery: time.Hour})
	}()
	select {
	case <-g.started:
	case r := <-done:
		t.Fatalf("the first search did not start: %s %v", r.Stop, r.Err)
	}
	for _, opt := range []Options{
		{CheckpointDir: dir, CheckpointEvery: time.Hour},
		{Resume: dir},
		{Resume: dir, CheckpointDir: t.TempDir(), CheckpointEvery: time.Hour},
		{CheckpointDir: dir + "/.", CheckpointEvery: time.Hour, Mode: DepthFirst},
	} {
		r := Search[pt](&cgrid{grid: grid{N: 150}}, opt)
		if r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), "in use") || !strings.Contains(r.Err.Error(), dir) || r.Transitions != 0 {
			t.Errorf("%+v: a second search on a locked directory: stop %s, %d generated, err %v", opt, r.Stop, r.Transitions, r.Err)
		}
	}
	close(g.release)
	got := <-done
	if got.Err != nil || !got.Resumed || got.States != want.States || got.Transitions != want.Transitions {
		t.Fatalf("the first search: %s %v, resumed %v, %d/%d; uninterrupted %d/%d", got.Stop, got.Err, got.Resumed,
			got.States, got.Transitions, want.States, want.Transitions)
	}
	if r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: dir, CheckpointEvery: time.Nanosecond}); r.Err != nil || !r.Complete {
		t.Fatalf("after the first search ended: %s %v", r.Stop, r.Err)
	}
}

// TestCheckpointDirChecked: a checkpoint directory that is a file, that
// cannot be created, or that cannot be written is refused before the
// search starts, in one line naming it, even when no checkpoint would be
// due for an hour; a missing one is created.
func TestCheckpointDirChecked(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ dir, want string }{
		{file, "not a directory"},
		{filepath.Join(file, "sub"), "cannot create it"},
	}
	if os.Geteuid() != 0 { // root writes to a read-only directory
		ro := filepath.Join(t.TempDir(), "ro")
		if err := os.Mkdir(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		cases = append(cases, struct{ dir, want string }{ro, "not writable"})
	}
	for _, c := range cases {
		for _, mode := range []Mode{BreadthFirst, DepthFirst} {
			r := Search[pt](&cgrid{grid: grid{N: 30}}, Options{Mode: mode, CheckpointDir: c.dir, CheckpointEvery: time.Hour})
			msg := ""
			if r.Err != nil {
				msg = r.Err.Error()
			}
			if r.Stop != StopError || !strings.Contains(msg, c.want) || !strings.Contains(msg, c.dir) || strings.Contains(msg, "\n") || r.Transitions != 0 {
				t.Errorf("%s %s: stop %s, %d generated, err %q", mode, c.dir, r.Stop, r.Transitions, msg)
			}
		}
	}
	missing := filepath.Join(t.TempDir(), "a", "b")
	if r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: missing, CheckpointEvery: time.Hour}); r.Err != nil || !r.Complete {
		t.Fatalf("a missing directory: %s %v", r.Stop, r.Err)
	}
	if fi, err := os.Stat(missing); err != nil || !fi.IsDir() {
		t.Fatalf("a missing directory is not created: %v", err)
	}
}

// icgrid is the cgrid with an independence relation, so that BFS's POR
// (sleep sets) applies; scgrid is the cgrid with the symmetry (x, y) ↦
// (y, x).
type icgrid struct{ cgrid }

func (g *icgrid) Independent(s pt, a, b Action) bool { return a.Kind != b.Kind }

type scgrid struct{ cgrid }

func (g *scgrid) Canonical(s pt) pt { return pt{min(s.X, s.Y), max(s.X, s.Y)} }

// TestCheckpointRefusalsNameFlags: a search that cannot checkpoint says
// which ftcheck flags and which Options conflict.
func TestCheckpointRefusalsNameFlags(t *testing.T) {
	dir := t.TempDir()
	ev := Property[pt]{Name: "Ev", Kind: Eventually, Check: func(s pt) error { return nil }}
	for _, c := range []struct {
		name string
		m    Model[pt]
		opt  Options
		want []string
	}{
		{"bfs por", &icgrid{cgrid{grid: grid{N: 5}}}, Options{POR: true}, []string{"--por", "--dfs", "Options.POR"}},
		{"whole states", &cgrid{grid: grid{N: 5}}, Options{WholeStates: true}, []string{"--whole-states", "Options.WholeStates"}},
		{"dfs whole states", &cgrid{grid: grid{N: 5}}, Options{WholeStates: true, Mode: DepthFirst}, []string{"--whole-states"}},
		{"bfs eventually", &cgrid{grid: grid{N: 5, props: []Property[pt]{ev}}}, Options{}, []string{"eventually property", "--property"}},
		{"no codec", &grid{N: 5}, Options{}, []string{"checker.Codec", "grid n=5"}},
	} {
		c.opt.CheckpointDir, c.opt.CheckpointEvery = dir, time.Hour
		r := Search(c.m, c.opt)
		for _, w := range c.want {
			if r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), w) {
				t.Errorf("%s: stop %s, err %v; want %q in it", c.name, r.Stop, r.Err, w)
			}
		}
		if r.Err != nil && !strings.Contains(r.Err.Error(), "--checkpoint") {
			t.Errorf("%s: %v does not name --checkpoint", c.name, r.Err)
		}
	}
	// DFS checkpoints with POR.
	if r := DFS[pt](&ctorus{cgrid: cgrid{grid: grid{N: 60}}}, Options{POR: true, CheckpointDir: dir, CheckpointEvery: time.Nanosecond}); r.Err != nil || !r.POR || r.Checkpoints == 0 {
		t.Fatalf("dfs por: %v, por %v, %d checkpoints", r.Err, r.POR, r.Checkpoints)
	}
}

// TestCheckpointResumeSettings: a BFS resumed with another number of
// workers at each round ends as the uninterrupted search; a resume that
// selects other properties, or turns symmetry on, is refused before it
// starts (no state generated, no progress report) and says what differs.
func TestCheckpointResumeSettings(t *testing.T) {
	props := []Property[pt]{sumBelow(1000), xStepBelow(1000)}
	want := BFS[pt](&cgrid{grid: grid{N: 150, props: props}}, Options{Workers: 1})
	r := rand.New(rand.NewPCG(9, 9))
	dir := t.TempDir()
	var got *Result
	for round := 0; ; round++ {
		ctx, cancel := context.WithCancel(context.Background())
		g := &canceling{cgrid: cgrid{grid: grid{N: 150, props: props}}, after: 1 + r.Int64N(want.Transitions/3), cancel: cancel}
		opt := Options{Workers: 1 + round%3, Context: ctx, CheckpointDir: dir, CheckpointEvery: time.Nanosecond}
		if round > 0 {
			opt.Resume = dir
		}
		got = BFS[pt](g, opt)
		cancel()
		if got.Stop != StopCanceled {
			break
		}
		if round > 50 {
			t.Fatal("never completes")
		}
	}
	if got.Err != nil || !got.Resumed || got.States != want.States || got.Transitions != want.Transitions || got.Depth != want.Depth {
		t.Fatalf("workers changed at each resume: %s %v, resumed %v %d/%d/%d; uninterrupted %d/%d/%d", got.Stop, got.Err, got.Resumed,
			got.States, got.Transitions, got.Depth, want.States, want.Transitions, want.Depth)
	}

	dir = gridCheckpoint(t, 3000, props...)
	for _, c := range []struct {
		name string
		m    Model[pt]
		opt  Options
		want string
	}{
		{"one property", &cgrid{grid: grid{N: 150, props: props}}, Options{Properties: []string{"SumBelow"}}, "properties SumBelow,XStep, this search selects SumBelow"},
		{"no property", &cgrid{grid: grid{N: 150}}, Options{}, "this search selects (none)"},
		{"symmetry", &scgrid{cgrid{grid: grid{N: 150, props: props}}}, Options{Symmetry: true}, "symmetry=false"},
	} {
		reports := 0
		c.opt.Resume, c.opt.Progress = dir, func(Stats) { reports++ }
		r := BFS(c.m, c.opt)
		if r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), c.want) || r.Resumed || r.Transitions != 0 || reports != 0 {
			t.Errorf("%s: stop %s, %d generated, %d progress reports, err %v; want %q in it", c.name, r.Stop, r.Transitions, reports, r.Err, c.want)
		}
	}
	if r := BFS[pt](&cgrid{grid: grid{N: 150, props: props}}, Options{Resume: dir, Properties: []string{"XStep", "SumBelow"}}); r.Err != nil || !r.Resumed {
		t.Fatalf("the same properties named in another order: %v", r.Err)
	}

	// DFS: persistent sets (POR in effect) or not.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dfsDir := t.TempDir()
	if r := DFS[pt](&ctorus{cgrid: cgrid{grid: grid{N: 60}}, after: 2000, cancel: cancel}, Options{POR: true, Context: ctx, CheckpointDir: dfsDir}); r.Stop != StopCanceled || !r.POR || r.Checkpoints != 1 {
		t.Fatalf("dfs por: %s %v, por %v, %d checkpoints", r.Stop, r.Err, r.POR, r.Checkpoints)
	}
	reports := 0
	res := DFS[pt](&ctorus{cgrid: cgrid{grid: grid{N: 60}}}, Options{Resume: dfsDir, Progress: func(Stats) { reports++ }})
	if res.Stop != StopError || res.Err == nil || !strings.Contains(res.Err.Error(), "written with symmetry=false por=true lassos=false, this search runs with symmetry=false por=false") || res.Transitions != 0 || reports != 0 {
		t.Errorf("dfs without --por: stop %s, %d generated, %d progress reports, err %v", res.Stop, res.Transitions, reports, res.Err)
	}
}

// slowFirst is a cgrid whose first Apply sleeps for pause.
type slowFirst struct {
	canceling
	once  sync.Once
	pause time.Duration
}

func (g *slowFirst) Apply(s pt, a Action) (pt, error) {
	g.once.Do(func() { time.Sleep(g.pause) })
	return g.canceling.Apply(s, a)
}

// TestCheckpointResumeSeconds: after a resume, Seconds (in the result and
// in the progress reports) is cumulative: the time of the run before up to
// its checkpoint (ResumedSeconds) plus this run's, and the progress rate
// is Generated/Seconds; for BFS and DFS.
func TestCheckpointResumeSeconds(t *testing.T) {
	const pause = 300 * time.Millisecond
	for _, mode := range []Mode{BreadthFirst, DepthFirst} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		g := &slowFirst{canceling: canceling{cgrid: cgrid{grid: grid{N: 150}}, after: 3000, cancel: cancel}, pause: pause}
		first := Search[pt](g, Options{Mode: mode, Workers: 2, Context: ctx, CheckpointDir: dir, CheckpointEvery: time.Nanosecond})
		cancel()
		if first.Stop != StopCanceled || first.Checkpoints == 0 {
			t.Fatalf("%s: stop %s, %d checkpoints", mode, first.Stop, first.Checkpoints)
		}
		var last Stats
		got := Search[pt](&cgrid{grid: grid{N: 150}}, Options{Mode: mode, Workers: 2, Resume: dir, Progress: func(s Stats) { last = s }})
		if got.Err != nil || !got.Complete {
			t.Fatalf("%s: %s %v", mode, got.Stop, got.Err)
		}
		if got.Seconds < pause.Seconds() || got.ResumedSeconds < pause.Seconds() || got.ResumedSeconds > first.Seconds || got.Seconds < got.ResumedSeconds {
			t.Errorf("%s: seconds %.3f (resumed %.3f), the run before %.3f with a pause of %v", mode, got.Seconds, got.ResumedSeconds, first.Seconds, pause)
		}
		if last.Seconds < got.ResumedSeconds || last.Generated != got.Transitions ||
			abs(last.Rate-float64(last.Generated)/last.Seconds) > 1e-6*last.Rate {
			t.Errorf("%s: last progress %+v; result %.3f s (resumed %.3f), %d generated", mode, last, got.Seconds, got.ResumedSeconds, got.Transitions)
		}
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestCheckpointLockProcesses: a search in another process holding a
// checkpoint directory makes a search here refuse it, naming that
// process; once that process has ended the directory is free. The other
// process is this test binary, run again with FTKERNEL_TEST_HOLD_CHECKPOINT
// set: it holds the directory until its stdin closes.
func TestCheckpointLockProcesses(t *testing.T) {
	if dir := os.Getenv("FTKERNEL_TEST_HOLD_CHECKPOINT"); dir != "" {
		g := &gate{cgrid: cgrid{grid: grid{N: 5}}, started: make(chan struct{}), release: make(chan struct{})}
		go func() {
			<-g.started
			fmt.Println("holding")
			io.Copy(io.Discard, os.Stdin)
			close(g.release)
		}()
		if r := BFS[pt](g, Options{Workers: 1, CheckpointDir: dir, CheckpointEvery: time.Hour}); r.Err != nil {
			t.Fatal(r.Err)
		}
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCheckpointLockProcesses$", "-test.count=1")
	cmd.Env = append(os.Environ(), "FTKERNEL_TEST_HOLD_CHECKPOINT="+dir)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "holding\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("the holding process: %q, %v", line, err)
	}
	r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: dir, CheckpointEvery: time.Hour})
	want := fmt.Sprintf("in use by process %d", cmd.Process.Pid)
	if r.Stop != StopError || r.Err == nil || !strings.Contains(r.Err.Error(), want) {
		t.Errorf("a directory another process holds: stop %s, err %v; want %q", r.Stop, r.Err, want)
	}
	stdin.Close()
	go io.Copy(io.Discard, stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the holding process: %v", err)
	}
	if r := BFS[pt](&cgrid{grid: grid{N: 5}}, Options{CheckpointDir: dir, CheckpointEvery: time.Hour}); r.Err != nil || !r.Complete {
		t.Fatalf("after the holding process ended: %s %v", r.Stop, r.Err)
	}
}
