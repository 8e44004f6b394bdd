package correction

import (
	"testing"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// BenchmarkBroadcast65536 simulates one Corrected Tree broadcast (Lamé k=2,
// synchronized checked correction, L=2, o=1) on P = 65536 processes with 1%
// failed, including building the nodes; the topology is built once.
func BenchmarkBroadcast65536(b *testing.B) {
	s := setup{tree: corrsm.Tree{Kind: corrsm.Lame, K: 2}, P: 65536, corr: corrsm.Checked, L: 2, o: 1}
	cfg := s.config(b)
	at := s.disseminationTime(b)
	sim, err := logp.New(s.options(at))
	if err != nil {
		b.Fatal(err)
	}
	faults := make([]core.RankSet, 16)
	for i := range faults {
		faults[i] = logp.RandomFaults(s.P, 0.01, 1, uint64(i))
	}
	b.ReportAllocs()
	var msgs int64
	for i := 0; b.Loop(); i++ {
		nodes, err := corrsm.Nodes(cfg)
		if err != nil {
			b.Fatal(err)
		}
		res, err := sim.Run(nodes, faults[i%len(faults)])
		if err != nil {
			b.Fatal(err)
		}
		msgs += res.Messages
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "broadcasts/s")
	b.ReportMetric(float64(msgs)/float64(b.N), "msgs/broadcast")
}
