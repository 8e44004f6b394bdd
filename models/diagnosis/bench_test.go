package diagnosis

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// BenchmarkRound: one test round of each algorithm at n = 256 and 1024 with the odd nodes faulty,
// once diagnosis has converged.
func BenchmarkRound(b *testing.B) {
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		for _, n := range []int{256, 1024} {
			b.Run(fmt.Sprintf("%s/n=%d", alg, n), func(b *testing.B) {
				var f []core.Rank
				for r := 1; r < n; r += 2 {
					f = append(f, core.Rank(r))
				}
				run, err := Measure(alg, n, f, "", MaxRounds(n))
				if err != nil {
					b.Fatal(err)
				}
				sys := run.Converged
				b.ResetTimer()
				for b.Loop() {
					sys.Round()
				}
			})
		}
	}
}

// BenchmarkCheck: the exhaustive check of each model over every fault set of n = 8.
func BenchmarkCheck(b *testing.B) {
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		b.Run(alg, func(b *testing.B) {
			r := modeltest.Build(b, alg, "--n", "8")
			for b.Loop() {
				if res := r.BFS(checker.Options{}); res.Err != nil || len(res.Violations) > 0 {
					b.Fatalf("err %v, %d violations", res.Err, len(res.Violations))
				}
			}
		})
	}
}

// BenchmarkNetCheck: the exhaustive check of VCube over a network (--timing bounded) at n = 4
// with one crash.
func BenchmarkNetCheck(b *testing.B) {
	r := modeltest.Build(b, VCube, "--timing", "bounded", "--n", "4", "--crashes", "1")
	for b.Loop() {
		if res := r.BFS(checker.Options{}); res.Err != nil || len(res.Violations) > 0 {
			b.Fatalf("err %v, %d violations", res.Err, len(res.Violations))
		}
	}
}

// BenchmarkNodeStep: one round of a VCube node over a network at n = 64 (the largest the machine takes), all fault-free: the
// round timer (its tests sent), then one REPLY merged.
func BenchmarkNodeStep(b *testing.B) {
	cfg := &dg.VCubeNodeConfig{N: 64, Delta: 1}
	v, err := dg.NewVCubeNode(cfg, 0)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := v.Step(core.Call(dg.StartVCube{}), nil); err != nil {
		b.Fatal(err)
	}
	reply := dg.TestReply{S: 1, TS: make([]uint32, cfg.N)}
	var out []core.Effect
	for b.Loop() {
		out, _ = v.Step(core.Timer(1), out[:0])
		out, _ = v.Step(core.Receive(out[0].To, dg.TestReply{S: uint8(v.S()), TS: reply.TS}), out[:0])
	}
}
