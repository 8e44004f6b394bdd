package netnode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
)

// tally is a recoverable toy machine: each call adds its value to total,
// which it keeps on stable storage, and counts the calls in calls, which
// it does not.
type tally struct{ total, calls uint64 }

func (t *tally) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvCall:
		t.total += uint64(ev.Input.(num))
		t.calls++
	case core.EvRestart:
	default:
		return out, fmt.Errorf("tally: unexpected %v", ev)
	}
	return out, nil
}
func (t *tally) Clone() core.Machine { c := *t; return &c }
func (t *tally) AppendBinary(b []byte) []byte {
	return core.AppendUint(core.AppendUint(b, t.total), t.calls)
}
func (t *tally) String() string        { return fmt.Sprintf("total=%d calls=%d", t.total, t.calls) }
func (t *tally) Recover() core.Machine { return &tally{total: t.total} }

func decodeNum(b []byte) (core.Input, error) {
	d := core.NewDecoder(b)
	v := num(d.Uint())
	return v, d.Finish()
}

// runTally runs one incarnation of a single-process tally node over dir
// until it stepped steps events (its calls, and its restart when inc > 0),
// and returns its log.
func runTally(t *testing.T, dir string, m core.Machine, inc, restored uint64, steps int, calls ...num) string {
	t.Helper()
	ln, err := netnode.Listen()
	if err != nil {
		t.Fatal(err)
	}
	var log lockedBuffer
	stepped := make(chan struct{}, 16)
	nd, err := netnode.New(netnode.Config{Rank: 0, Peers: []string{ln.Addr().String()}, Listener: ln, Machine: m, Decode: decode,
		Trace: &log, StateDir: dir, Incarnation: inc, Restored: restored, AfterStep: func() { stepped <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := nd.Connect(ctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- nd.Run(ctx) }()
	for _, v := range calls {
		nd.Call(v)
	}
	for range steps {
		select {
		case <-stepped:
		case <-ctx.Done():
			t.Fatal("the node did not step")
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	return log.b.String()
}

// TestRestoreRebuildsTheStableState: a node with a StateDir journals each
// step and commits its Recover() state; Restore rebuilds exactly that
// state from the journal (the volatile call count reset), as incarnation
// 1, which steps Restart first and goes on journaling after the first
// incarnation's steps; what the logs do not show, or a stable file that
// the journal does not give, is an error.
func TestRestoreRebuildsTheStableState(t *testing.T) {
	dir := t.TempDir()
	runTally(t, dir, &tally{}, 0, 0, 2, 3, 4)
	r, err := netnode.Restore(dir, &tally{}, 2, decode, decodeNum)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Machine.String(); got != "total=7 calls=0" || r.Incarnation != 1 || r.Calls != 2 || r.Steps != 2 {
		t.Fatalf("restored %s, incarnation %d, %d calls of %d steps; want total=7 calls=0, 1, 2 of 2", got, r.Incarnation, r.Calls, r.Steps)
	}
	// A kill between a step's log line and its rename: the logs show one
	// step more than the stable file, and the journal has it.
	if _, err := netnode.Restore(dir, &tally{}, 3, decode, decodeNum); err == nil || !strings.Contains(err.Error(), "journal has 2 steps") {
		t.Errorf("logged 3 of 2 journaled: %v", err)
	}
	if _, err := netnode.Restore(dir, &tally{}, 1, decode, decodeNum); err == nil || !strings.Contains(err.Error(), "covers 2") {
		t.Errorf("logged 1, stable state of 2: %v", err)
	}

	log := runTally(t, dir, r.Machine, r.Incarnation, r.Steps, 2, 5)
	if first := strings.Split(log, "\n")[1]; !strings.Contains(first, `"kind":"restart"`) {
		t.Errorf("incarnation 1's first step is %s, want its restart", first)
	}
	r2, err := netnode.Restore(dir, &tally{}, 4, decode, decodeNum)
	if err != nil {
		t.Fatal(err)
	}
	if got := r2.Machine.String(); got != "total=12 calls=0" || r2.Incarnation != 2 || r2.Calls != 3 {
		t.Errorf("restored %s, incarnation %d, %d calls; want total=12 calls=0, 2, 3", got, r2.Incarnation, r2.Calls)
	}

	// A stable state the journal does not give.
	path := filepath.Join(dir, netnode.StableFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["state"] = (&tally{total: 13}).AppendBinary(nil)
	b, _ = json.Marshal(st)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := netnode.Restore(dir, &tally{}, 4, decode, decodeNum); err == nil || !strings.Contains(err.Error(), "other than the committed one") {
		t.Errorf("altered stable state: %v", err)
	}
	if !bytes.Contains([]byte(log), []byte(`"incarnation":1`)) {
		t.Errorf("incarnation 1's log header does not say so: %s", strings.Split(log, "\n")[0])
	}
}
