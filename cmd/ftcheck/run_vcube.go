package main

import (
	"github.com/ftkernel/ftkernel/core"
)

func init() { runScenarios["vcube"] = vcubeScenario }

// vcubeScenario is `ftcheck run vcube`: VCube (thesis §3.4) over the
// network model (--timing bounded, statemachine/diagnosis.VCubeNode), in
// ticks. Every node starts its test rounds at tick 0; a round lasts 2Δ+1
// ticks; a test is a TEST/REPLY pair, and a tested node that has not
// answered by the round's deadline is tested faulty, so a killed process,
// which answers nothing, is diagnosed by its testers and the news spreads
// by the timestamp merge. No failure detector tells anyone of a kill. A
// process has finished once every kill was made and its diagnosis has held
// the killed ranks for a full cycle of log2 n rounds (stableDiagnosis).
var vcubeScenario = runScenario{
	doc: "VCube over the network (--timing bounded): every node starts its test rounds at tick 0 (one tick is --time-unit, " +
		"a round 2Δ+1 ticks); a test is a TEST/REPLY message pair and a node that has not answered by the round's deadline is tested faulty; " +
		"no failure detector tells anyone of a kill; a process has finished once its diagnosis, unchanged for a full cycle of log2 n rounds, " +
		"holds every killed rank; a rank of its diagnosis that was not killed is a problem; latency is from the kill to that report",
	defaults:  [][2]string{{"timing", "bounded"}, {"time-unit", "50ms"}, {"delta", "2"}, {"max-rounds", "100000"}},
	crashFlag: "crashes",
	output:    core.EffSuspect,
	finish:    finishDetected,
	label:     "p",
	known:     stableDiagnosis,
}

// vcubeDiagnosis is what stableDiagnosis reads of a VCube node.
type vcubeDiagnosis interface {
	Diagnosis() core.RankSet
	Round() uint64
	Cycle() int
}

// diagnosisSince is, in a run-node process (one machine per process), the
// node's diagnosis and the round in which it became what it is.
var diagnosisSince struct {
	set   core.RankSet
	round uint64
}

// stableDiagnosis is a VCube node's diagnosis once it has been unchanged
// for a full cycle: through every round from the one after it last changed
// to log2 n rounds later (the node has begun the round after those). Before
// that it is empty: nothing is reported yet.
func stableDiagnosis(m core.Machine) core.RankSet {
	v, ok := m.(vcubeDiagnosis)
	if !ok {
		return core.RankSet{}
	}
	d := v.Diagnosis()
	if !d.Equal(diagnosisSince.set) {
		diagnosisSince.set, diagnosisSince.round = d, v.Round()
	}
	if v.Round() > diagnosisSince.round+uint64(v.Cycle()) {
		return d
	}
	return core.RankSet{}
}
