package env

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
)

// recycleSearches are the searches that recycle successors (checker.Recycler).
var recycleSearches = map[string]checker.Options{
	"bfs":        {Workers: 1},
	"bfs-2":      {Workers: 2},
	"bfs-whole":  {Workers: 1, WholeStates: true},
	"dfs":        {Mode: checker.DepthFirst},
	"dfs-lassos": {Mode: checker.DepthFirst, Lassos: true},
}

// summary is what a search's result must not owe to recycling.
type summary struct {
	States, Transitions int64
	Depth               int
	Complete            bool
	Violations          []string
}

func summarize(res *checker.Result) summary {
	s := summary{States: res.States, Transitions: res.Transitions, Depth: res.Depth, Complete: res.Complete}
	for _, tr := range res.Violations {
		s.Violations = append(s.Violations, fmt.Sprintf("%s init %d, %d steps: %s", tr.Violation.Property, tr.Init, tr.Violation.Steps, tr.Violation.Message))
	}
	return s
}

// worldKeeper is a transition property that keeps worlds it is given:
// every successor (hoard, against the checker.Recycler contract) or only
// those on which it fails: the successors of crashes it met before (by
// fingerprint), which a search drops as visited unless a check failed on
// them, as here; the checker must then not recycle them.
type worldKeeper struct {
	mu    sync.Mutex
	kept  []*World
	encs  [][]byte // Encode of each kept world when it was kept (not for hoard)
	seen  map[uint64]bool
	hoard bool
}

// invariant is a worldKeeper's other form: an invariant that fails (and
// keeps the world) on every state with two crashes.
func (k *worldKeeper) invariant() checker.Property[*World] {
	return checker.Property[*World]{Name: "keeps-invariant-failures", Kind: checker.Invariant,
		Check: func(w *World) error {
			if w.NumCrashed() != 2 {
				return nil
			}
			k.mu.Lock()
			defer k.mu.Unlock()
			k.kept = append(k.kept, w)
			k.encs = append(k.encs, w.m.Encode(nil, w))
			return errors.New("two crashes")
		}}
}

func (k *worldKeeper) property() checker.Property[*World] {
	name := "keeps-failures"
	if k.hoard {
		name = "hoards"
	}
	k.seen = map[uint64]bool{}
	return checker.Property[*World]{Name: name, Kind: checker.Transition,
		CheckStep: func(_ *World, _ checker.Action, next *World) error {
			if !k.hoard && next.LastAction().Kind != Crash {
				return nil
			}
			k.mu.Lock()
			defer k.mu.Unlock()
			if k.hoard {
				k.kept = append(k.kept, next)
				return nil
			}
			fp := next.m.Fingerprint(next)
			if !k.seen[fp] {
				k.seen[fp] = true
				return nil
			}
			k.kept = append(k.kept, next)
			k.encs = append(k.encs, next.m.Encode(nil, next))
			return errors.New("a crash met again")
		}}
}

// holds is an invariant that never fails: with it, a search under
// ContinueAfterViolation goes on after the worldKeeper's first failure
// (it stops once every property has failed).
var holds = checker.Property[*World]{Name: "holds", Kind: checker.Invariant,
	Check: func(*World) error { return nil }}

// poisoned counts the kept worlds that were recycled (cleared) or, for
// those whose encoding was kept, whose encoding changed since (a proc
// they share was cleared with another world's block).
func (k *worldKeeper) poisoned() int {
	n := 0
	for i, w := range k.kept {
		if w.m == nil || i < len(k.encs) && !sameEncoding(w, k.encs[i]) {
			n++
		}
	}
	return n
}

// sameEncoding reports whether w still encodes as enc (false when
// encoding it panics on a cleared proc).
func sameEncoding(w *World, enc []byte) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return bytes.Equal(w.m.Encode(nil, w), enc)
}

// TestRecycledWorldsUnused runs every codec toy with each search twice,
// without recycling and with recycled worlds cleared instead of reused
// (recyclePoison: any later use of one fails or panics), and compares the
// results; with a transition property that fails (and keeps the worlds it
// fails on) on crashes into states it met before, and an invariant that
// fails (and keeps them) on states with two crashes, under
// ContinueAfterViolation (so that BFS meets failures in many chunks before
// the property counts as violated). It fails when the
// checker recycles a world it still uses (a frontier or stack state, a
// parent), a world a failed check saw, or one twice.
func TestRecycledWorldsUnused(t *testing.T) {
	var released, failed int64
	for name, cfg := range codecConfigs() {
		for sname, opt := range recycleSearches {
			t.Run(name+"/"+sname, func(t *testing.T) {
				opt.MaxStates, opt.ContinueAfterViolation = 20000, true
				run := func(mode recycleMode) (summary, *worldKeeper, *worldKeeper, *Model) {
					k, ki := &worldKeeper{}, &worldKeeper{}
					c := cfg
					c.Properties = append(append([]checker.Property[*World](nil), c.Properties...), k.property(), ki.invariant(), holds)
					m := mustNew(t, c)
					m.recycle.mode = mode
					return summarize(checker.Search[*World](m, opt)), k, ki, m
				}
				want, _, _, _ := run(recycleOff)
				got, k, ki, m := run(recyclePoison)
				if d := cmp.Diff(want, got); d != "" {
					t.Fatalf("results differ with recycling (-off +poison):\n%s", d)
				}
				for _, k := range []*worldKeeper{k, ki} {
					failed += int64(len(k.kept))
					if n := k.poisoned(); n > 0 {
						t.Fatalf("%d of the %d worlds a failed check saw were recycled", n, len(k.kept))
					}
				}
				released += m.recycle.released.Load()
			})
		}
	}
	if released == 0 || failed == 0 {
		t.Fatalf("%d worlds recycled, %d failed checks: the test exercises nothing", released, failed)
	}
}

// TestRecyclePoisonDetects: a property that keeps every successor (which
// the checker.Recycler contract forbids) finds some of them cleared in
// recyclePoison mode, by BFS and by DFS: the poisoning shows a world used
// after its recycling. (Whole-states BFS is left out: on this toy, as on
// ERA, every path to a state has the same length, so BFS meets duplicates
// only within a level, at the insert phase, where it recycles nothing.)
func TestRecyclePoisonDetects(t *testing.T) {
	cfg := codecConfigs()["flood"]
	for sname, opt := range recycleSearches {
		if opt.WholeStates {
			continue
		}
		t.Run(sname, func(t *testing.T) {
			k := &worldKeeper{hoard: true}
			c := cfg
			c.Properties = []checker.Property[*World]{k.property()}
			m := mustNew(t, c)
			m.recycle.mode = recyclePoison
			if res := checker.Search[*World](m, opt); res.Err != nil {
				t.Fatal(res.Err)
			}
			if k.poisoned() == 0 {
				t.Fatalf("none of the %d hoarded worlds was cleared", len(k.kept))
			}
		})
	}
}
