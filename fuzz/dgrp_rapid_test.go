package fuzz

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	dgrpmodel "github.com/ftkernel/ftkernel/models/dgrp"
	"github.com/ftkernel/ftkernel/statemachine/dgrp"
)

// without is a model that does not check some of its properties.
type without struct {
	*env.Model
	names []string
}

func (m without) Properties() []checker.Property[*env.World] {
	var out []checker.Property[*env.World]
	for _, p := range m.Model.Properties() {
		if !slices.Contains(m.names, p.Name) {
			out = append(out, p)
		}
	}
	return out
}

// TestDgrpRapid: rapid draws a DGRP (3 or 4 processes, 1 to 3 rounds,
// lossy channels or not, the literal AMBIGUOUS-2(a) or not), up to three
// slow tests (tester, peer, round), re-admission or not (ζ 1 or 2, or ζ
// above the rounds), and then every action of a run of models/dgrp
// (re-admission through Paxos); every claimed property holds on every
// step, and the run ends quiescent. With re-admission, membership
// (P-DGRP-1) and divergent-tests (P-DGRP-2) are left out: both fail once
// a tester whose report was ignored is re-admitted before the barrier
// (models/dgrp TestMembershipFailsWithReadmission,
// TestDivergentFailsWithReadmission; docs/dgrp.md). Rapid shrinks a
// failure to a minimal group and schedule.
func TestDgrpRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		p := dgrpmodel.Params{
			N:             rapid.IntRange(3, 4).Draw(rt, "n"),
			Rounds:        rapid.IntRange(1, 3).Draw(rt, "rounds"),
			Imperfect:     true,
			Loss:          rapid.IntRange(0, 1).Draw(rt, "loss"),
			IgnoreWhenOut: rapid.Bool().Draw(rt, "ignore-when-out"),
		}
		readmit := rapid.Bool().Draw(rt, "readmission")
		p.Zeta = p.Rounds + 1
		if readmit {
			p.Zeta = rapid.IntRange(1, 2).Draw(rt, "zeta")
		}
		p.Scenario = make([][]dgrp.Slow, p.N)
		for range rapid.IntRange(0, 3).Draw(rt, "slow") {
			i := rapid.IntRange(0, p.N-1).Draw(rt, "tester")
			j := (i + rapid.IntRange(1, p.N-1).Draw(rt, "peer")) % p.N
			r := rapid.IntRange(1, p.Rounds).Draw(rt, "round")
			p.Scenario[i] = append(p.Scenario[i], dgrp.Slow{Round: uint32(r), Peer: core.Rank(j)})
		}
		m, err := dgrpmodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		var skip []string
		if readmit {
			skip = []string{dgrpmodel.Membership, dgrpmodel.Divergent}
		}
		walkRapid(rt, without{m, skip}, 3000, true)
	})
}
