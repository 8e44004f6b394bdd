package correction

import (
	"context"
	"runtime"
	"slices"
	"sync"

	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/registry"
)

// CorrSim is one LogP setting of a Corrected Tree broadcast: the tree, the
// correction, the LogP parameters and, for synchronized start, the start
// time (the fault-free dissemination's quiescence, as in §4.2). With gossip
// dissemination the start is the gossip time T (§3.3: "a pre-specified
// moment in time"), and run i gossips over GossipPartners(…, seed, i).
type CorrSim struct {
	Params  Params
	L, O, G int64
	Overlap bool
	Prio    logp.Prio
	cfg     *corrsm.Config
	syncAt  int64
	// twin is the opportunistic correction of the same setting (no
	// mutant), against which an optimized run is checked (CheckCovers).
	twin *CorrSim
}

// NewCorrSim tabulates the tree and finds the synchronized start.
func NewCorrSim(p Params, L, o, g int64, overlap bool, prio logp.Prio) (*CorrSim, error) {
	if p.Tree.Kind == corrsm.Optimal {
		p.Tree.L, p.Tree.O = int(L), int(o)
	}
	if p.Gossip != nil {
		gp := *p.Gossip
		if gp.Time == 0 {
			gp.Time = DefaultGossipTime(p.P)
		}
		if gp.Rounds == 0 {
			gp.Rounds = int((gp.Time + o - 1) / o) // sends start at t < T, one every o
		}
		p.Gossip = &gp
	}
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	s := &CorrSim{Params: p, L: L, O: o, G: g, Overlap: overlap, Prio: prio, cfg: cfg}
	if p.Correction == corrsm.OptimizedOpportunistic {
		tp := p
		tp.Correction, tp.Mutant = corrsm.Opportunistic, ""
		if s.twin, err = NewCorrSim(tp, L, o, g, overlap, prio); err != nil {
			return nil, err
		}
	}
	if p.Gossip != nil {
		s.syncAt = p.Gossip.Time
	} else if p.Start == corrsm.Synchronized && p.Correction != corrsm.NoCorrection {
		d := *s
		dc := *cfg
		dc.Correction = corrsm.NoCorrection
		d.cfg = &dc
		sim, err := logp.New(d.options(false))
		if err != nil {
			return nil, err
		}
		res, _, err := d.Run(sim, core.RankSet{})
		if err != nil {
			return nil, err
		}
		s.syncAt = res.QuiescenceLatency
	}
	return s, nil
}

// SyncAt is the synchronized start of correction.
func (s *CorrSim) SyncAt() int64 { return s.syncAt }

func (s *CorrSim) options(log bool) logp.Options {
	opt := logp.Options{L: s.L, O: s.O, G: s.G, Prio: s.Prio,
		SendSlotTimer:      corrsm.TimerSendSlot,
		Calls:              []logp.Call{{At: 0, Proc: 0, Input: corrsm.Broadcast{Value: BcastValue}}},
		CorrectionKinds:    []string{corrsm.KindCorrection},
		DisseminationKinds: []string{corrsm.KindTree},
		Log:                log,
	}
	if !s.Overlap {
		opt.Overlap = logp.Off
	}
	switch {
	case s.cfg.Gossip != nil:
		// The end of the gossip phase: before anything else of instant T,
		// so gossip sends start at t < T (gossip.go, rule G4).
		opt.Wakeups = []logp.Wakeup{{At: s.syncAt, Timer: corrsm.TimerStart, First: true}}
	case s.cfg.Start == corrsm.Synchronized && s.cfg.Correction != corrsm.NoCorrection:
		opt.Wakeups = []logp.Wakeup{{At: s.syncAt, Timer: corrsm.TimerStart}}
	}
	return opt
}

// NewSim returns a simulator for s (one per goroutine).
func (s *CorrSim) NewSim(log bool) (*logp.Sim, error) { return logp.New(s.options(log)) }

// Run simulates one broadcast (run 0) with faults failed from the start.
func (s *CorrSim) Run(sim *logp.Sim, faults core.RankSet) (*logp.Result, []core.Machine, error) {
	return s.RunNumber(sim, faults, 0)
}

// RunNumber simulates run number run: for gossip dissemination its partner
// sequences are GossipPartners(P, rounds, seed, run); trees do not depend
// on it.
func (s *CorrSim) RunNumber(sim *logp.Sim, faults core.RankSet, run uint64) (*logp.Result, []core.Machine, error) {
	cfg := s.cfg
	if g := s.Params.Gossip; g != nil && run != 0 {
		plan, err := GossipPartners(s.Params.P, g.Rounds, g.Seed, run)
		if err != nil {
			return nil, nil, err
		}
		c := *cfg
		c.Gossip = plan
		cfg = &c
	}
	nodes, err := corrsm.Nodes(cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := sim.Run(nodes, faults)
	return res, nodes, err
}

// Sims are one goroutine's simulators for s: its own, and its twin's
// for optimized correction.
type Sims struct{ sim, twin *logp.Sim }

// NewSims returns the simulators RunChecked needs (one set per goroutine).
func (s *CorrSim) NewSims(log bool) (*Sims, error) {
	sim, err := s.NewSim(log)
	if err != nil || s.twin == nil {
		return &Sims{sim: sim}, err
	}
	twin, err := s.twin.NewSim(false)
	return &Sims{sim: sim, twin: twin}, err
}

// RunViolation is a guarantee a run violated, with what reproduces it:
// the run's number (its fault set and gossip partners are drawn from the
// seed and this number) and its fault set.
type RunViolation struct {
	Run    int
	Faults core.RankSet
	Err    *GuaranteeError
}

// RunChecked simulates run number run with faults failed from the start
// and checks its guarantees (CheckRun; for optimized correction also
// CheckCovers against the opportunistic twin on the same faults and
// partners). The violation is nil when they hold; error is a failure of
// the simulation itself.
func (s *CorrSim) RunChecked(sims *Sims, faults core.RankSet, run uint64) (*logp.Result, *RunViolation, error) {
	var opp *logp.Result
	if s.twin != nil {
		r, _, err := s.twin.RunNumber(sims.twin, faults, run)
		if err != nil {
			return nil, nil, err
		}
		opp = keepColoring(r)
	}
	res, nodes, err := s.RunNumber(sims.sim, faults, run)
	if err != nil {
		return nil, nil, err
	}
	cerr := CheckRun(s.cfg, BcastValue, res, nodes, faults)
	if cerr == nil && opp != nil {
		cerr = CheckCovers(opp, res)
	}
	if cerr == nil {
		return res, nil, nil
	}
	ge, ok := cerr.(*GuaranteeError)
	if !ok {
		return nil, nil, cerr
	}
	return res, &RunViolation{Run: int(run), Faults: faults, Err: ge}, nil
}

// RunFigures are the figures of one simulated broadcast (JSON keys).
type RunFigures struct {
	Coloring           int64 `json:"coloring"`
	Quiescence         int64 `json:"quiescence"`
	CorrectionLatency  int64 `json:"correction_latency"`
	Messages           int64 `json:"messages"`
	CorrectionMessages int64 `json:"correction_messages"`
	Uncolored          int   `json:"uncolored"`
	GMax               int   `json:"g_max"`
	Duplicates         int   `json:"duplicates"`
	// Violation is the guarantee the run violated (RunChecked), or nil.
	Violation *RunViolation `json:"-"`
}

func figuresOf(r *logp.Result) RunFigures {
	return RunFigures{Coloring: r.ColoringLatency, Quiescence: r.QuiescenceLatency, CorrectionLatency: r.CorrectionLatency,
		Messages: r.Messages, CorrectionMessages: r.CorrectionMessages, Uncolored: r.Uncolored, GMax: r.GapMax, Duplicates: r.Duplicates}
}

// Campaign runs `runs` broadcasts of s with RandomFaults(P, rate, seed, i)
// for run i (and, for gossip, run i's partner sequences), on all CPUs, each
// checked for its guarantees (RunChecked: RunFigures.Violation); the
// result is indexed by run and does not depend on the number of workers.
// When ctx is canceled it stops and returns the runs 0..k-1 finished
// before, fewer than runs.
func (s *CorrSim) Campaign(ctx context.Context, rate float64, runs int, seed uint64, progress func(done int)) ([]RunFigures, error) {
	out := make([]RunFigures, runs)
	finished := make([]bool, runs)
	log := registry.RunLogOf(ctx) // ftcheck simulate --shard and merge (runrecord.go)
	c := log.Begin()
	workers := min(runtime.GOMAXPROCS(0), runs)
	var mu sync.Mutex
	next, done := 0, 0
	var firstErr error
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sims, err := s.NewSims(false)
			for {
				mu.Lock()
				i := next
				next++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if i >= runs || firstErr != nil || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				mu.Unlock()
				fig, rerr := s.campaignRun(log, c, sims, rate, seed, i)
				mu.Lock()
				if rerr != nil {
					err = rerr
				} else {
					out[i] = fig
					finished[i] = true
				}
				done++
				if progress != nil {
					progress(done)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if k := slices.Index(finished, false); k >= 0 && firstErr == nil {
		out = out[:k]
	}
	return out, firstErr
}

func column(fs []RunFigures, f func(RunFigures) float64) []float64 {
	out := make([]float64, len(fs))
	for i, x := range fs {
		out[i] = f(x)
	}
	return out
}

func distributions(fs []RunFigures) map[string]Dist {
	return map[string]Dist{
		"coloring":            NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Coloring) })),
		"quiescence":          NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Quiescence) })),
		"correction_latency":  NewDist(column(fs, func(r RunFigures) float64 { return float64(r.CorrectionLatency) })),
		"messages":            NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Messages) })),
		"correction_messages": NewDist(column(fs, func(r RunFigures) float64 { return float64(r.CorrectionMessages) })),
		"uncolored":           NewDist(column(fs, func(r RunFigures) float64 { return float64(r.Uncolored) })),
		"g_max":               NewDist(column(fs, func(r RunFigures) float64 { return float64(r.GMax) })),
	}
}
