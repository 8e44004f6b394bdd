package msglog

import (
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// OnlyFailedRollsBack is the property's name, as ftcheck --property takes
// it.
const OnlyFailedRollsBack = "only-failed-rolls-back"

// MutantSurvivorRollback is a mutant of the model, not of
// statemachine/msglog: a survivor that answers a restarted peer's
// RESEND_FROM also restores its own last checkpoint and recovers as if it
// had crashed (coordinated rollback, which pessimistic logging exists to
// avoid). Its peers are not told; the property only-failed-rolls-back
// catches it.
const MutantSurvivorRollback = mutant.Name("survivor-rollback")

// ModelMutants are the mutants the model implements around the
// protocol's machine (their docs are in mutantDocs).
var ModelMutants = []mutant.Name{MutantSurvivorRollback}

// protocolMutant is m if statemachine/msglog implements it, else none.
func protocolMutant(m mutant.Name) mutant.Name {
	for _, x := range ModelMutants {
		if x == m {
			return mutant.None
		}
	}
	return m
}

// rollbacks counts the rollbacks in p's history: the application events
// of one incarnation have increasing operation indices, so each event
// whose index is not above the previous one's starts a re-execution from
// an earlier state.
func rollbacks(w *env.World, p core.Rank) int {
	is, _ := events(w, p)
	n := 0
	for k := 1; k < len(is); k++ {
		if is[k] <= is[k-1] {
			n++
		}
	}
	return n
}

// onlyFailedRollsBack is the chapter 5 introduction's guarantee: "na sua
// abordagem pessimista apenas o processo que falha é reiniciado". A
// process rolls back at most once per restart of its own.
func onlyFailedRollsBack(n core.Rank) checker.Property[*env.World] {
	return checker.Property[*env.World]{Name: OnlyFailedRollsBack, Kind: checker.Invariant,
		Doc: "only the failed process rolls back (chapter 5: \"apenas o processo que falha é reiniciado\"): a process re-executes from an earlier state at most once per restart of its own",
		Check: func(w *env.World) error {
			for q := range n {
				if r, inc := rollbacks(w, q), w.Incarnation(q); r > inc {
					return fmt.Errorf("p%d rolled back %d times and restarted %d times", q, r, inc)
				}
			}
			return nil
		}}
}

// survivorRollback is the application process under
// MutantSurvivorRollback.
type survivorRollback struct{ *ml.Process }

func (s survivorRollback) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	out, err := s.Process.Step(ev, out)
	if err != nil || ev.Kind != core.EvReceive {
		return out, err
	}
	if _, ok := ev.Msg.(ml.ResendFrom); !ok || s.Recovering() {
		return out, nil
	}
	*s.Process = *s.Process.Recover().(*ml.Process)
	return s.Process.Step(core.Restart(), out)
}

func (s survivorRollback) Clone() core.Machine {
	return survivorRollback{s.Process.Clone().(*ml.Process)}
}

func (s survivorRollback) Recover() core.Machine {
	return survivorRollback{s.Process.Recover().(*ml.Process)}
}

// withModelMutant wraps the application process n for mutant m.
func withModelMutant(m mutant.Name, n *ml.Process) core.Machine {
	if m == MutantSurvivorRollback {
		return survivorRollback{n}
	}
	return n
}

// asProcess is the protocol's machine of an application process's node.
func asProcess(m core.Machine) *ml.Process {
	if s, ok := m.(survivorRollback); ok {
		return s.Process
	}
	return m.(*ml.Process)
}

// mutantCodec is c with its node decoder wrapping a decoded application
// process for the model's mutant m, so that a state held as its encoding
// (BFS's compact frontier, --spill) keeps the mutant.
func mutantCodec(m mutant.Name, c env.Codec) env.Codec {
	node := c.Node
	if protocolMutant(m) == m || node == nil {
		return c
	}
	c.Node = func(b []byte, r core.Rank, n int) (core.Machine, error) {
		x, err := node(b, r, n)
		if p, ok := x.(*ml.Process); ok && err == nil {
			return withModelMutant(m, p), nil
		}
		return x, err
	}
	return c
}
