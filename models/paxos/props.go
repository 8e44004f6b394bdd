package paxos

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/props"
	px "github.com/ftkernel/ftkernel/statemachine/paxos"
)

// Property names, as ftcheck --property takes them.
const (
	Validity         = "validity"
	Agreement        = "agreement"
	UniformAgreement = "uniform-agreement"
	Integrity        = "integrity"
	InOrder          = "in-order"
	Termination      = "termination"
)

// Properties are the consensus properties of §2.1.2 per instance ("O
// consenso está alicerçado em quatro propriedades … terminação, validade,
// integridade e acordo"), over the EffDecide records of the learners
// (instance i decides the i-th command, §5.1.3), then, under bounded
// delay, the environment's timing rules (env.TimingProperties); with a
// restart, loss or duplication budget, also its fault budgets
// (env.FaultProperties).
//
// Agreement is the thesis's ("dois processos corretos não decidem valores
// diferentes": live processes); Paxos also has uniform agreement (no two
// processes, crashed or restarted ones included, decide differently), since
// a learner decides only a value a quorum accepted at one ballot, which is
// the value every higher ballot proposes: both are checked, neither is
// expected to fail.
//
// Termination (§2.1.2: "cada processo correto em algum momento decide por
// algum valor"; "terminação na presença de um único coordenador") is a
// checker.Eventually property under bounded delay, checked over every run
// of the finite state graph: from every reachable world, every run reaches
// a world where the live learners have decided the same log, holding every
// command the live proposers proposed in their current incarnation and
// every value any process returned or decided, and every live proposer has
// made its calls and had them return. It is assumed that, in the run's
// limit, at most f acceptors are down and some proposer is up (the
// property passes in worlds where that fails, so a run that breaks the
// assumption for a while must still terminate once it holds again). The
// fault budgets are finite, so faults stop; every message is delivered
// within Δ ticks or lost within the loss budget, and the retransmission
// timer (2Δ+1 ticks) re-sends what a loss withheld: after the last fault
// the run is synchronous, the eventual synchrony under which Paxos
// progresses ("o progresso sob suposições de assincronia fraca"), and the
// first live proposer by rank stays coordinator (the perfect detector and
// takeover by rank make it the single coordinator). Under --timing async
// termination is not checked (FLP; timers fire at any step).
func Properties(p Params) []checker.Property[*env.World] {
	ps := []checker.Property[*env.World]{
		props.Proposed(Validity,
			"a decided value was proposed by some process (§2.1.2: \"se um processo decide por um valor v, então v foi proposto por algum processo\"), or is the no-op a new coordinator fills an empty instance with (PMS)",
			proposals, func(v core.Value) bool { return v.(px.Command).IsNoop() }, same),
		props.Agreement(Agreement,
			"no two live processes decide different values for one instance (§2.1.2: \"dois processos corretos não decidem valores diferentes\"); checked on every decision",
			false, same),
		props.Agreement(UniformAgreement,
			"no two processes, crashed or restarted ones included, decide different values for one instance (uniform agreement: Paxos has it, a learner deciding only on a quorum of one ballot)",
			true, same),
		props.DecideOnce(Integrity,
			"no process decides twice for one instance, restarts included (§2.1.2: \"nenhum processo decide duas vezes\")"),
		props.DecidedInOrder(InOrder,
			"every learner decides instances 0, 1, 2, … in order (§5.1.3: \"a i-ésima instância de consenso decide sobre o i-ésimo comando\"), over its whole history, restarts included"),
	}
	if p.Recoveries > 0 || p.Loss > 0 || p.Dup > 0 {
		// The environment's fault budgets, checked on every step.
		ps = append(ps, env.FaultProperties()...)
	}
	if p.Timing != env.BoundedDelay {
		return ps
	}
	ps = append(ps, props.Eventually(Termination,
		fmt.Sprintf("eventually every live learner has decided the same log, with every command a live proposer proposed in its current incarnation and every value returned or decided anywhere, and every live proposer's calls have returned (§2.1.2 termination, \"na presença de um único coordenador\"), assuming at most f=%d acceptors and not every proposer down in the run's limit; under bounded delay Δ with retransmission after 2Δ+1 ticks and finite fault budgets", p.F()),
		func(w *env.World) bool { return assumed(p, w) }, terminated))
	return append(ps, env.TimingProperties()...)
}

// same compares two commands.
func same(a, b core.Value) bool {
	x, ok1 := a.(px.Command)
	y, ok2 := b.(px.Command)
	if ok1 && ok2 {
		return x == y
	}
	return props.SameEncoding(a, b)
}

// proposals lists the commands q has proposed: its Propose calls made.
func proposals(w *env.World, q core.Rank) []core.Value {
	var vs []core.Value
	for _, in := range w.CallsMade(q) {
		if c, ok := in.(px.Propose); ok {
			vs = append(vs, px.Command{Origin: q, Data: c.Data})
		}
	}
	return vs
}

// assumed is termination's assumption in w: at most f acceptors down and
// some proposer up.
func assumed(p Params, w *env.World) bool {
	down, up := 0, false
	for r := range core.Rank(p.N()) {
		switch {
		case int(r) < p.Proposers:
			up = up || !w.Crashed(r)
		case w.Crashed(r):
			down++
		}
	}
	return up && down <= p.F()
}

// terminated is termination's "done" in w (see Properties).
func terminated(w *env.World) error {
	var ref []px.Command
	var refRank core.Rank = core.NoRank
	for r := range core.Rank(w.N()) {
		if w.Crashed(r) {
			continue
		}
		n := w.Node(r).(*px.Node)
		cfg := n.Config()
		if _, ok := slices.BinarySearch(cfg.Proposers, r); ok {
			if k := len(w.PendingCalls(r)); k > 0 {
				return fmt.Errorf("%v is alive with %d calls not made", r, k)
			}
			if pend := n.Pending(); len(pend) > 0 {
				return fmt.Errorf("%v is alive and its proposal %v has not returned", r, pend[0])
			}
		}
		if _, ok := slices.BinarySearch(cfg.Learners, r); !ok {
			continue
		}
		log := n.Log()
		if refRank == core.NoRank {
			ref, refRank = log, r
			continue
		}
		if !slices.Equal(log, ref) {
			return fmt.Errorf("live learners %v and %v have decided %d and %d instances: %v and %v", refRank, r, len(ref), len(log), log, ref)
		}
	}
	if refRank == core.NoRank {
		return nil
	}
	for q := range core.Rank(w.N()) {
		for _, rec := range w.History(q) {
			if rec.Kind != core.EffDecide && rec.Kind != core.EffReturn {
				continue
			}
			if rec.Instance >= uint64(len(ref)) || ref[rec.Instance] != rec.Value.(px.Command) {
				return fmt.Errorf("%v %s %v in instance %d, which the live learners (%v: %v) have not decided", q, verb(rec.Kind), rec.Value, rec.Instance, refRank, ref)
			}
		}
	}
	return nil
}

func verb(k core.EffectKind) string {
	if k == core.EffReturn {
		return "returned"
	}
	return "decided"
}
