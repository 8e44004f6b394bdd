package linearize

import (
	"math/rand/v2"
	"testing"

	"github.com/anishathalye/porcupine"
	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	replicamodel "github.com/ftkernel/ftkernel/models/replica"
)

// walkReplica runs one seeded random walk of p to quiescence and returns
// its worlds.
func walkReplica(t *testing.T, p replicamodel.Params, seed uint64) []*env.World {
	t.Helper()
	m, err := replicamodel.NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	w := m.Init()[0]
	worlds := []*env.World{w}
	var buf []checker.Action
	for !m.Quiescent(w) {
		buf = m.Actions(w, buf[:0])
		if w, err = m.Apply(w, buf[rng.IntN(len(buf))]); err != nil {
			t.Fatal(err)
		}
		worlds = append(worlds, w)
	}
	return worlds
}

// TestReplicaDeliveriesLinearize: random runs of the explicit-source
// programs, with crashes, give deliveries consistent with one log per
// logical process; the ANY_SOURCE program gives some run that is not.
func TestReplicaDeliveriesLinearize(t *testing.T) {
	for _, prog := range []string{"ping-pong", "ring", "gather-sum", "master-worker", "mid-example"} {
		p := replicamodel.Params{Program: prog, Procs: 3, Degree: 3, Rounds: 3, ReplicateRank0: true, Crashes: 2, Network: env.Unordered}
		ops := 0
		for seed := uint64(0); seed < 30; seed++ {
			worlds := walkReplica(t, p, seed)
			res, err := CheckReplicaRun(worlds)
			if err != nil {
				t.Fatal(err)
			}
			o, _ := FromReplicaWorlds(worlds)
			ops += len(o)
			if res != porcupine.Ok {
				t.Fatalf("%s seed %d: %v", prog, seed, res)
			}
		}
		if ops == 0 {
			t.Fatalf("%s: no delivery in 30 runs", prog)
		}
	}
	p := replicamodel.Params{Program: "gather-sum-any-source", Procs: 4, Degree: 3, Network: env.Unordered}
	illegal := 0
	for seed := uint64(0); seed < 50; seed++ {
		res, err := CheckReplicaRun(walkReplica(t, p, seed))
		if err != nil {
			t.Fatal(err)
		}
		if res == porcupine.Illegal {
			illegal++
		}
	}
	t.Logf("gather-sum-any-source: %d of 50 random runs not linearizable", illegal)
	if illegal == 0 {
		t.Fatal("no ANY_SOURCE run breaks the single log")
	}
}
