package env

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// starModel is the star protocol at n processes, each calling once, with up
// to 3 crashes (CrashProb 1e-4) and a Fail rank.
func starModel(b testing.TB, n int) *Model {
	vals := make([]int64, n)
	for p := range vals {
		vals[p] = int64(1000 + n - p) // clear of the toy's special values
	}
	return mustNew(b, Config{Name: "star", N: n, Crashes: 3, CrashProb: 1e-4, Fail: []core.Rank{core.Rank(n - 1)},
		NewNode: newStar, Schedules: [][][]core.Input{one(vals...)}})
}

// BenchmarkWalk: one random walk (Sample + Apply) to quiescence per
// iteration; reports ns and allocations per step.
func BenchmarkWalk(b *testing.B) {
	for _, n := range []int{64, 1024, 6000} {
		b.Run(fmt.Sprintf("star/n=%d", n), func(b *testing.B) {
			m := starModel(b, n)
			var steps int
			var buf []checker.Action
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r := rand.New(rand.NewPCG(uint64(i), 1))
				s := m.Init()[0]
				for {
					a, ok := m.Sample(s, r, buf)
					if !ok {
						break
					}
					next, err := m.Apply(s, a)
					if err != nil {
						b.Fatal(err)
					}
					s = next
					steps++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/walk")
		})
	}
}

// relay is a constant-size machine, to time the environment alone: a call
// sends a token to the next rank; the first token a process receives makes
// it decide, return and pass a token on.
type relay struct {
	me      core.Rank
	n       int
	decided bool
}

func (r *relay) Clone() core.Machine { c := *r; return &c }

func (r *relay) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	next := core.Rank((int(r.me) + 1) % r.n)
	switch ev.Kind {
	case core.EvCall:
		return append(out, core.Send(next, msg{V: 1})), nil
	case core.EvReceive:
		if !r.decided {
			r.decided = true
			out = append(out, core.Decide(0, val(1)), core.Return(0, val(1)), core.Send(next, msg{V: 1}))
		}
	}
	return out, nil
}

func (r *relay) AppendBinary(b []byte) []byte {
	return core.AppendBool(core.AppendUint(b, uint64(r.me)), r.decided)
}
func (r *relay) String() string { return fmt.Sprintf("%v decided=%v", r.me, r.decided) }

func BenchmarkWalkRelay(b *testing.B) {
	for _, n := range []int{64, 1024, 6000} {
		b.Run(fmt.Sprintf("relay/n=%d", n), func(b *testing.B) {
			m := mustNew(b, Config{Name: "relay", N: n, Crashes: 3, CrashProb: 1e-3, Fail: []core.Rank{1},
				NewNode:   func(p core.Rank, n int) core.Machine { return &relay{me: p, n: n} },
				Schedules: [][][]core.Input{one(make([]int64, n)...)}})
			var steps int
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				r := rand.New(rand.NewPCG(uint64(i), 1))
				s := m.Init()[0]
				for {
					a, ok := m.Sample(s, r, nil)
					if !ok {
						break
					}
					next, err := m.Apply(s, a)
					if err != nil {
						b.Fatal(err)
					}
					s = next
					steps++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps), "ns/step")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/walk")
		})
	}
}
