package dgrp

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
)

// TestDocsCounts pins the exhaustive checks docs/dgrp.md reports (the
// `ftcheck check dgrp` runs): each completes, every property holds, with
// these distinct-state counts.
func TestDocsCounts(t *testing.T) {
	for _, c := range []struct {
		flags  string
		p      Params
		states int64
	}{
		{"(defaults)", DefaultCheck, 1803},
		{"--slow 2", Params{N: 3, Zeta: 2, Rounds: 1, Imperfect: true, Slow: 2}, 8418},
		{"--rounds 2 --imperfect=false", Params{N: 3, Zeta: 2, Rounds: 2, Imperfect: false, Slow: 1}, 5225},
		{"--loss 1", Params{N: 3, Zeta: 2, Rounds: 1, Imperfect: true, Slow: 1, Loss: 1}, 82533},
		{"--rounds 2 --zeta 1 --consensus oracle", Params{N: 3, Zeta: 1, Rounds: 2, Imperfect: true, Slow: 1, Consensus: ConsensusOracle}, 66458},
		{"--rounds 3 --imperfect=false --zeta 1 --consensus oracle", Params{N: 3, Zeta: 1, Rounds: 3, Imperfect: false, Slow: 1, Consensus: ConsensusOracle}, 180697},
		{"--rounds 3 --imperfect=false --zeta 2 --consensus oracle", Params{N: 3, Zeta: 2, Rounds: 3, Imperfect: false, Slow: 1, Consensus: ConsensusOracle}, 52699},
	} {
		m, err := NewModel(c.p)
		if err != nil {
			t.Fatal(err)
		}
		res := checker.BFS[*env.World](m, checker.Options{})
		if !res.Complete || len(res.Violations) > 0 || res.States != c.states {
			t.Errorf("check dgrp %s: %d states (pinned %d), complete %v, %d violations", c.flags, res.States, c.states, res.Complete, len(res.Violations))
		}
	}
}
