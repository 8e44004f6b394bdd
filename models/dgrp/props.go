package dgrp

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// Property names, as ftcheck --property takes them.
const (
	Membership       = "membership"        // P-DGRP-1
	Divergent        = "divergent-tests"   // P-DGRP-2
	Readmission      = "readmission"       // P-DGRP-3
	RemovalByTest    = "removal-by-test"   // counters odd only through a failed test
	LeaderLowest     = "leader-lowest"     // the proposer of a re-admission is the lowest member
	OneConsensus     = "one-consensus"     // a leader starts one consensus per re-admission
	OneDecision      = "one-decision"      // one decision per re-admission (not claimed)
	BarrierAgreement = "barrier-agreement" // AMBIGUOUS-5
)

func nodes(w *env.World) []*dg.Node {
	out := make([]*dg.Node, w.N())
	for r := range out {
		out[r] = w.Node(core.Rank(r)).(*dg.Node)
	}
	return out
}

// atBarriers calls f for every process v that passed a barrier and is a
// member of the view it read there, with the round r and the view.
//
// unaware reports whether v's view at the barrier (counters c) missed
// tester j's failed test of k in round r: its counter for k is below the
// one j held after the test (a later re-admission of k raises it past).
func atBarriers(ns []*dg.Node, f func(v core.Rank, r uint32, view core.RankSet, unaware func(j, k core.Rank) bool) error) error {
	for _, n := range ns {
		r := n.LastBarrier()
		view, c, ok := n.ViewAt(r)
		if !ok || !view.Has(n.Rank()) {
			continue
		}
		unaware := func(j, k core.Rank) bool {
			fails, cj, ok := ns[j].Fails(r)
			return ok && fails.Has(k) && c[k] < cj[k]
		}
		if err := f(n.Rank(), r, view, unaware); err != nil {
			return err
		}
	}
	return nil
}

// Properties are the DGRP's claims (§4.1, spec §3.6) and the questions the
// thesis leaves open.
func Properties(p Params) []checker.Property[*env.World] {
	return []checker.Property[*env.World]{
		{Name: Membership, Kind: checker.Invariant, Stable: false,
			Doc: "P-DGRP-1 (§4.1): at the barrier of round r, a member's view holds no two members one of which tested the other non-recommended in round r, unless the view's counters show a later re-admission",
			Check: func(w *env.World) error {
				ns := nodes(w)
				return atBarriers(ns, func(v core.Rank, r uint32, view core.RankSet, unaware func(j, k core.Rank) bool) error {
					var err error
					view.Each(func(j core.Rank) {
						view.Each(func(k core.Rank) {
							if err == nil && unaware(j, k) {
								err = fmt.Errorf("%v's view at the barrier of round %d is %v, but %v tested %v non-recommended in that round", v, r, view, j, k)
							}
						})
					})
					return err
				})
			}},
		{Name: Divergent, Kind: checker.Invariant,
			Doc: "P-DGRP-2 (§4.1): when two members of a member's view disagree on a process in round r, that process is not in the view read at the barrier of round r",
			Check: func(w *env.World) error {
				ns := nodes(w)
				return atBarriers(ns, func(v core.Rank, r uint32, view core.RankSet, unaware func(j, k core.Rank) bool) error {
					var err error
					view.Each(func(k core.Rank) {
						var pass, fail core.Rank = core.NoRank, core.NoRank
						view.Each(func(j core.Rank) {
							if fails, _, ok := ns[j].Fails(r); ok && j != k {
								switch {
								case unaware(j, k):
									fail = j
								case !fails.Has(k):
									pass = j
								}
							}
						})
						if err == nil && pass != core.NoRank && fail != core.NoRank {
							err = fmt.Errorf("in round %d %v passed %v and %v failed it, yet %v's view at the barrier is %v", r, pass, k, fail, v, view)
						}
					})
					return err
				})
			}},
		{Name: Readmission, Kind: checker.Invariant, Stable: true,
			Doc: "P-DGRP-3 (§4.1.1): every re-admission a process applied was decided by consensus (in its Paxos log) and requested by a member after ζ consecutive recommended tests",
			Check: func(w *env.World) error {
				ns := nodes(w)
				for _, n := range ns {
					log := n.Decided()
					for _, e := range n.Admitted() {
						if !slices.Contains(log, dg.Command(e.K, e.C)) {
							return fmt.Errorf("%v re-admitted %v at counter %d without a consensus decision (decided: %v)", n.Rank(), e.K, e.C, log)
						}
						requested := false
						for _, m := range ns {
							requested = requested || slices.Contains(m.Requests(), e)
						}
						if !requested {
							return fmt.Errorf("%v re-admitted %v at counter %d, which no member requested", n.Rank(), e.K, e.C)
						}
					}
				}
				return nil
			}},
		{Name: RemovalByTest, Kind: checker.Invariant, Stable: true,
			Doc: "§4.1 (\"Processos testados como não-recomendados são removidos\"), AMBIGUOUS-6: a process's counter is odd (removed) at some process only at a value a failed test of it created",
			Check: func(w *env.World) error {
				ns := nodes(w)
				for _, n := range ns {
					for k, c := range n.Syndrome() {
						if c%2 == 0 {
							continue
						}
						made := false
						for _, m := range ns {
							made = made || m.Made()[k] >= c
						}
						if !made {
							return fmt.Errorf("%v holds p%d's counter at %d (removed), a value no failed test created", n.Rank(), k, c)
						}
					}
				}
				return nil
			}},
		{Name: LeaderLowest, Kind: checker.Invariant, Stable: true,
			Doc: "§4.1.2 (\"O líder no DGRP é o processo com menor rank\"): every re-admission was proposed by the lowest-ranked member of the proposer's view",
			Check: func(w *env.World) error {
				for _, n := range nodes(w) {
					for _, p := range n.Proposals() {
						if p.Leader != n.Rank() {
							return fmt.Errorf("%v proposed the re-admission of %v at counter %d, but the lowest member of its view was %v", n.Rank(), p.K, p.C, p.Leader)
						}
					}
				}
				return nil
			}},
		{Name: OneConsensus, Kind: checker.Invariant, Stable: true,
			Doc: "§4.1.2 (\"somente uma é considerada\"): a leader starts at most one consensus per re-admission (process, counter); two leaders of different views may each start one (docs/dgrp.md)",
			Check: func(w *env.World) error {
				for _, n := range nodes(w) {
					ps := n.Proposals()
					for i, p := range ps {
						for _, q := range ps[:i] {
							if q.K == p.K && q.C == p.C {
								return fmt.Errorf("%v proposed the re-admission of %v at counter %d twice", n.Rank(), p.K, p.C)
							}
						}
					}
				}
				return nil
			}},
		{Name: OneDecision, Kind: checker.Invariant, Stable: true, ExpectFail: true,
			Doc: "not claimed: a learner's log decides each re-admission (process, counter) at most once; two leaders (views that differ on the lowest member) each propose it",
			Check: func(w *env.World) error {
				for _, n := range nodes(w) {
					log := n.Decided()
					for i, c := range log {
						if slices.Contains(log[:i], c) {
							return fmt.Errorf("%v's consensus log decides %q twice: %v", n.Rank(), c, log)
						}
					}
				}
				return nil
			}},
		{Name: BarrierAgreement, Kind: checker.Invariant, ExpectFail: true,
			Doc: "AMBIGUOUS-5 (not claimed by the thesis): every member that passed the barrier of round r read the same view there",
			Check: func(w *env.World) error {
				ns := nodes(w)
				for _, a := range ns {
					r := a.LastBarrier()
					va, _, ok := a.ViewAt(r)
					if !ok || !va.Has(a.Rank()) {
						continue
					}
					for _, b := range ns {
						vb, _, ok := b.ViewAt(r)
						if ok && vb.Has(b.Rank()) && !vb.Equal(va) {
							return fmt.Errorf("at the barrier of round %d %v read %v and %v read %v", r, a.Rank(), va, b.Rank(), vb)
						}
					}
				}
				return nil
			}},
	}
}
