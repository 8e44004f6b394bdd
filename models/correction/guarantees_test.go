package correction

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// guaranteeRun is one LogP run of cfg (root value 42) with faults failed
// from the start; the synchronized start is the fault-free dissemination
// time.
func guaranteeRun(t *testing.T, cfg *sm.Config, L, o int64, faults core.RankSet) (*logp.Result, []core.Machine) {
	t.Helper()
	opt := logp.Options{L: L, O: o, G: o, SendSlotTimer: sm.TimerSendSlot,
		Calls:           []logp.Call{{At: 0, Proc: 0, Input: sm.Broadcast{Value: 42}}},
		CorrectionKinds: []string{sm.KindCorrection}, DisseminationKinds: []string{sm.KindTree}}
	if cfg.Start == sm.Synchronized {
		opt.Wakeups = []logp.Wakeup{{At: flogDissemination(t, cfg.Topology, opt), Timer: sm.TimerStart}}
	}
	sim, err := logp.New(opt)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := sm.Nodes(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(nodes, faults)
	if err != nil {
		t.Fatal(err)
	}
	return res, nodes
}

// guaranteeCase is one random configuration of seed i: a tree, P ≤ 256,
// L 1 … 6 and o 1 … 2, a start, an early rule, d 1 … 4, a delay 1 … 8, and
// 0 … 20 % failed.
type guaranteeCase struct {
	top     *sm.Topology
	L, o    int64
	start   sm.StartMode
	early   sm.EarlyRule
	d       int
	delay   uint64
	faults  core.RankSet
	summary string
}

func newGuaranteeCase(t *testing.T, seed uint64) guaranteeCase {
	rng := rand.New(rand.NewPCG(seed, 0x6a))
	trees := []sm.Tree{{Kind: sm.BinomialInterleaved}, {Kind: sm.BinomialInOrder}, {Kind: sm.Lame, K: 2}, {Kind: sm.KaryInterleaved, K: 4}, {Kind: sm.Optimal}}
	tr := trees[rng.IntN(len(trees))]
	c := guaranteeCase{L: int64(1 + rng.IntN(6)), o: int64(1 + rng.IntN(2)), d: 1 + rng.IntN(4), delay: uint64(1 + rng.IntN(8))}
	if tr.Kind == sm.Optimal {
		tr.L, tr.O = int(c.L), int(c.o)
	}
	P := 2 + rng.IntN(255)
	top, err := sm.NewTopology(tr, P)
	if err != nil {
		t.Fatal(err)
	}
	c.top = top
	c.start = sm.StartMode(rng.IntN(2))
	c.early = sm.EarlyRule(rng.IntN(2))
	rate := rng.Float64() * 0.2
	c.faults = logp.RandomFaults(P, rate, seed, 1)
	c.summary = top.Tree().String()
	return c
}

// The guarantees CheckRun and CheckCovers check, on 4,000 seeded random
// configurations × every correction (relational checks on many seeds):
// integrity, no duplicates and the
// message bound for every variant; every live process colored by checked
// and delayed correction; optimized opportunistic correction colors all
// that opportunistic correction colors on the same faults.
func TestGuaranteesOnSeeds(t *testing.T) {
	t0 := time.Now()
	runs := 0
	for seed := range uint64(4000) {
		c := newGuaranteeCase(t, seed)
		base := sm.Config{Topology: c.top, Start: c.start, Early: c.early, Distance: c.d, Delay: c.delay}
		var opp *logp.Result
		for _, kind := range []sm.CorrectionKind{sm.Opportunistic, sm.OptimizedOpportunistic, sm.Checked, sm.Delayed} {
			cfg := base
			cfg.Correction = kind
			res, nodes := guaranteeRun(t, &cfg, c.L, c.o, c.faults)
			runs++
			if err := CheckRun(&cfg, 42, res, nodes, c.faults); err != nil {
				t.Fatalf("seed %d: %v P=%d L=%d o=%d %v %v early=%v d=%d delay=%d failed %v: %v",
					seed, c.summary, c.top.P(), c.L, c.o, kind, c.start, c.early, c.d, c.delay, c.faults, err)
			}
			switch kind {
			case sm.Opportunistic:
				opp = keepColoring(res)
			case sm.OptimizedOpportunistic:
				if err := CheckCovers(opp, res); err != nil {
					t.Fatalf("seed %d: %v P=%d L=%d o=%d %v early=%v d=%d failed %v: %v",
						seed, c.summary, c.top.P(), c.L, c.o, c.start, c.early, c.d, c.faults, err)
				}
			}
		}
	}
	t.Logf("%d runs in %.1fs", runs, time.Since(t0).Seconds())
}

// CheckRun and CheckCovers fail on runs that break each guarantee (so the
// checks above can fail): for a mutant per guarantee, the first of 100
// seeded fault sets (P = 64, 20 % failed, both starts) on which the check
// fails must name that guarantee, and one must fail.
func TestGuaranteeChecksCatchMutants(t *testing.T) {
	top, err := sm.NewTopology(sm.Tree{Kind: sm.BinomialInterleaved}, 64)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  sm.Config
		want string
	}{
		{sm.Config{Correction: sm.Checked, Mutant: sm.MutantUncoloredCorrects}, GuaranteeIntegrity},
		{sm.Config{Correction: sm.Checked, Mutant: sm.MutantRelayStaleValue}, GuaranteeIntegrity},
		{sm.Config{Correction: sm.Checked, Mutant: sm.MutantRedeliverOnCorrection}, GuaranteeNoDuplicates},
		{sm.Config{Correction: sm.Opportunistic, Distance: 70, Mutant: sm.MutantOpportunisticWraps}, GuaranteeMessageBound},
		{sm.Config{Correction: sm.Delayed, Delay: 4, Mutant: sm.MutantDelayedReplyAny}, GuaranteeColorsAll},
	} {
		caught := false
		for seed := uint64(0); seed < 100 && !caught; seed++ {
			cfg := tc.cfg
			cfg.Topology, cfg.Start = top, sm.StartMode(seed%2)
			faults := logp.RandomFaults(64, 0.2, seed, 1)
			res, nodes := guaranteeRun(t, &cfg, 2, 1, faults)
			err := CheckRun(&cfg, 42, res, nodes, faults)
			if err == nil {
				continue
			}
			var ge *GuaranteeError
			if !errors.As(err, &ge) || ge.Property != tc.want {
				t.Errorf("%v mutant %s, seed %d: CheckRun = %v, want a %s violation", cfg.Correction, cfg.Mutant, seed, err, tc.want)
			}
			caught = true
		}
		if !caught {
			t.Errorf("%v mutant %s: no violation in 100 runs", tc.cfg.Correction, tc.cfg.Mutant)
		}
	}
	// The relational check: the mirrored optimized rule (flogsim's) on the
	// random configurations of TestGuaranteesOnSeeds.
	caught := -1
	for seed := range uint64(200) {
		c := newGuaranteeCase(t, seed)
		cfg := sm.Config{Topology: c.top, Start: c.start, Early: c.early, Distance: c.d, Correction: sm.Opportunistic}
		res, _ := guaranteeRun(t, &cfg, c.L, c.o, c.faults)
		opp := keepColoring(res)
		cfg.Correction, cfg.Mutant = sm.OptimizedOpportunistic, sm.MutantOptimizedMirror
		res, _ = guaranteeRun(t, &cfg, c.L, c.o, c.faults)
		var ge *GuaranteeError
		if err := CheckCovers(opp, res); errors.As(err, &ge) && ge.Property == GuaranteeOptimizedCovers {
			caught = int(seed)
			break
		}
	}
	if caught < 0 {
		t.Error("optimized-mirror: CheckCovers found nothing in 200 seeds")
	}
	t.Logf("optimized-mirror caught at seed %d", caught)
}
