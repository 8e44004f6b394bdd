package env_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/env/envtest"
	"github.com/ftkernel/ftkernel/core"
)

// notP3First is a quiescence property of the latch toys that fails when
// p3's PING won p0's first place: something for the comparison of
// verdicts and the replay of counterexamples to bite on.
var notP3First = checker.Property[*env.World]{Name: "latch-not-p3-first", Kind: checker.Quiescence,
	Check: func(w *env.World) error {
		for _, r := range w.History(0) {
			if r.Kind == core.EffDeliver && r.Value == rankVal(3) {
				return errors.New("p0 took p3's PING first")
			}
		}
		return nil
	}}

// TestDropAbsorbed: on the latch toys (p0 a survivor or crashable, one or
// two crashes, FIFO, messages lost on crash, two pings per sender), the
// search that drops absorbed messages (Config.DropAbsorbed) finds the same
// violations and quiescent worlds as the plain one, visits exactly the
// plain worlds less their absorbed messages without persistent sets
// (envtest.CompareDrop), and fewer states, with and without persistent
// sets; and no world it reaches holds a message its receiver absorbs.
func TestDropAbsorbed(t *testing.T) {
	base := latchToy()
	base.Properties = []checker.Property[*env.World]{notP3First}
	variants := map[string]func(c *env.Config){
		"latch":             func(c *env.Config) {},
		"latch-crashable":   func(c *env.Config) { c.Survivors = nil },
		"latch-crashable-2": func(c *env.Config) { c.Survivors, c.Crashes = nil, 2 },
		"latch-fifo":        func(c *env.Config) { c.Network = env.FIFO },
		"latch-lose":        func(c *env.Config) { c.Loss = env.LossOnCrash },
		"latch-two-pings": func(c *env.Config) {
			next := c.NewNode
			c.NewNode = func(p core.Rank, n int) core.Machine {
				l := next(p, n).(*latch)
				if p != 0 {
					l.onCall = []core.Rank{0, 0}
				}
				return l
			}
			c.Network = env.FIFO
		},
	}
	for name, edit := range variants {
		c := base
		edit(&c)
		plain, err := env.New(c)
		if err != nil {
			t.Fatal(err)
		}
		c.DropAbsorbed = true
		drop, err := env.New(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, por := range []bool{false, true} {
			rep, err := envtest.CompareDrop(plain, drop, 100_000, por)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rep.DropStates >= rep.States {
				t.Errorf("%s, por %v: %d states with dropping, %d without", name, por, rep.DropStates, rep.States)
			}
			if rep.Violated != notP3First.Name {
				t.Errorf("%s, por %v: violated {%s}, want {%s}", name, por, rep.Violated, notP3First.Name)
			}
			t.Logf("%-18s por=%-5v states %4d → %4d, quiescent %d", name, por, rep.States, rep.DropStates, rep.Quiescent)
		}
		if !holdsAbsorbed(t, plain) {
			t.Fatalf("%s: no world of the plain search holds an absorbed message (the check below would be vacuous)", name)
		}
		if holdsAbsorbed(t, drop) {
			t.Fatalf("%s: a world of the dropping search holds an absorbed message", name)
		}
	}
}

// holdsAbsorbed reports whether some world m reaches holds a message its
// live receiver absorbs.
func holdsAbsorbed(t *testing.T, m *env.Model) bool {
	t.Helper()
	res := checker.DFS[*env.World](absorbedNowhere{m}, checker.Options{ContinueAfterViolation: true})
	for _, tr := range res.Violations {
		if tr.Violation.Property == "absorbed-nowhere" {
			return true
		}
	}
	if res.Err != nil || !res.Complete {
		t.Fatalf("%s: %v (complete %v, %s)", m.Name(), res.Err, res.Complete, res.Stop)
	}
	return false
}

// absorbedNowhere is a model with one invariant more: no message in flight
// is absorbed by its live receiver.
type absorbedNowhere struct{ *env.Model }

func (m absorbedNowhere) Properties() []checker.Property[*env.World] {
	return append(m.Model.Properties(), checker.Property[*env.World]{Name: "absorbed-nowhere", Kind: checker.Invariant,
		Check: func(w *env.World) error {
			for _, e := range w.InFlight() {
				if ab, ok := w.Node(e.To).(env.Absorber); ok && !w.Crashed(e.To) && ab.Absorbs(e.From, e.Msg) {
					return fmt.Errorf("%v absorbs %v from %v, in flight", e.To, e.Msg, e.From)
				}
			}
			return nil
		}})
}

// TestDropAbsorbedRefusesBoundedDelay: env.New refuses DropAbsorbed with
// BoundedDelay timing (absorb_drop.go).
func TestDropAbsorbedRefusesBoundedDelay(t *testing.T) {
	c := latchToy()
	c.DropAbsorbed, c.Timing, c.Delta = true, env.BoundedDelay, 1
	if _, err := env.New(c); !errors.Is(err, env.ErrConfig) {
		t.Fatalf("env.New with DropAbsorbed and BoundedDelay: %v, want an ErrConfig", err)
	}
}
