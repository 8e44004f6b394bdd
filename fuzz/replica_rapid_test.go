package fuzz

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/internal/mutant"
	replicamodel "github.com/ftkernel/ftkernel/models/replica"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
	"pgregory.net/rapid"
)

// TestReplicaRapid: rapid draws a communication pattern (2–3 logical
// processes, 1–8 communications), a degree per process, a crash budget, a
// network and a schedule, and every replica property holds; rapid shrinks
// any failure to a minimal pattern and schedule.
func TestReplicaRapid(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		procs := rapid.IntRange(2, 3).Draw(rt, "procs")
		degrees := rapid.SliceOfN(rapid.IntRange(1, 3), procs, procs).Draw(rt, "degrees")
		total := 0
		for _, d := range degrees {
			total += d
		}
		n := rapid.IntRange(1, 8).Draw(rt, "comms")
		comms := make([]replicamodel.Comm, n)
		for i := range comms {
			src := rapid.IntRange(0, procs-1).Draw(rt, "src")
			off := rapid.IntRange(1, procs-1).Draw(rt, "dst-offset")
			comms[i] = replicamodel.Comm{Src: src, Dst: (src + off) % procs, Tag: rapid.IntRange(0, 1).Draw(rt, "tag"),
				Fn: sm.Fn(rapid.IntRange(1, 4).Draw(rt, "fn")), K: int64(rapid.IntRange(-3, 9).Draw(rt, "k"))}
		}
		progs, err := replicamodel.PatternPrograms(procs, comms)
		if err != nil {
			rt.Fatal(err)
		}
		p := replicamodel.Params{Program: "pattern", Programs: progs, Procs: procs, Degrees: degrees,
			Crashes: rapid.IntRange(0, total-1).Draw(rt, "crashes"), Network: env.Network(rapid.IntRange(0, 1).Draw(rt, "network"))}
		m, err := replicamodel.NewModel(p)
		if err != nil {
			rt.Fatal(err)
		}
		choose := func(k int) int { return rapid.IntRange(0, k-1).Draw(rt, "action") }
		if _, name, err := replicamodel.Walk(m, choose, 3000); err != nil {
			rt.Fatalf("%s violated: %v", name, err)
		}
	})
}

func mutantNameReplica(s string) mutant.Name { return mutant.Name(s) }
