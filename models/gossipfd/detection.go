package gossipfd

import (
	"fmt"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// DetectionConfig is the Fig. 13 experiment (§5.3) in the simulator: "After
// 20 seconds we kill all processes on a random node … log at what time each
// node is notified of the failure and compute the time interval between
// failure and detection … T_gossip is set to 0.5 second. Figure 13 plots
// the average of these intervals on all nodes."
type DetectionConfig struct {
	Variant fd.Variant
	N       int
	// TGossipSec is T_gossip in seconds (0.5 in the paper).
	TGossipSec float64
	// TicksPerRound is T_gossip in ticks (the time resolution).
	TicksPerRound uint64
	// DelayMin, DelayMax bound the message delay in ticks (< TicksPerRound
	// for the paper's assumption); Seed seeds the delays.
	DelayMin, DelayMax uint64
	Seed               uint64
	// Cleanup is T_cleanup in rounds (0: PaperCleanup with CleanupMargin).
	Cleanup int
	// Ping enables the consensus phase; PingTimeout in ticks.
	Ping        bool
	PingTimeout uint64
	// CrashSec is when the host crashes (20 s in the paper).
	CrashSec float64
}

// DetectionResult gives, in seconds, the theoretical detection time (the
// paper plots T_cleanup as "theoretical") and the simulated ones, averaged
// over the live hosts and over the crash falling in each round of a cycle
// (the crashed host is host 0: by rotation symmetry any host gives the same
// times).
type DetectionResult struct {
	Variant       string  `json:"variant"`
	N             int     `json:"n"`
	TGossipSec    float64 `json:"t_gossip_s"`
	CleanupRounds int     `json:"cleanup_rounds"`
	Theoretical   float64 `json:"theoretical_s"` // T_cleanup × T_gossip
	// MeanSuspect is the mean time from the crash to the suspicion,
	// MeanDeclare to the declaration (after the ping timeout when Ping),
	// MaxDeclare the largest; all over live hosts and crash phases.
	MeanSuspect float64 `json:"mean_suspect_s"`
	MeanDeclare float64 `json:"mean_declare_s"`
	MaxDeclare  float64 `json:"max_declare_s"`
	// FalseDeclarations counts declarations of live hosts (0 expected).
	FalseDeclarations int `json:"false_declarations"`
	Runs              int `json:"runs"`
}

// Detection runs the experiment once per crash phase: the crash at CrashSec
// plus p rounds, p = 0…cycle−1, mid-round.
func Detection(c DetectionConfig) (DetectionResult, error) {
	res := DetectionResult{Variant: c.Variant.String(), N: c.N, TGossipSec: c.TGossipSec}
	if c.Variant == fd.Random {
		return res, fmt.Errorf("gossipfd: detection time is for the deterministic variants")
	}
	if c.TGossipSec <= 0 || c.TicksPerRound < 2 || c.CrashSec < 0 {
		return res, fmt.Errorf("gossipfd: T_gossip %v s, %d ticks per round, crash at %v s", c.TGossipSec, c.TicksPerRound, c.CrashSec)
	}
	C := c.Cleanup
	if C == 0 {
		var err error
		if C, err = fd.PaperCleanup(c.Variant, c.N, fd.CleanupMargin); err != nil {
			return res, err
		}
	}
	res.CleanupRounds = C
	res.Theoretical = float64(C) * c.TGossipSec
	tick := c.TGossipSec / float64(c.TicksPerRound) // seconds per tick
	cyc := fd.Cycle(c.Variant, c.N)
	crashRound := int(c.CrashSec / c.TGossipSec)
	var sumS, sumD float64
	var cnt int
	for p := range cyc {
		at := uint64(crashRound+p)*c.TicksPerRound + c.TicksPerRound/2
		sc := SimConfig{
			Node: fd.Config{N: c.N, Variant: c.Variant, TGossip: c.TicksPerRound, Cleanup: uint64(C),
				Ping: c.Ping, PingTimeout: c.PingTimeout},
			DelayMin: c.DelayMin, DelayMax: c.DelayMax, Seed: c.Seed + uint64(p),
			Crash:  map[core.Rank]uint64{0: at},
			Rounds: crashRound + p + 2*C + 2*cyc + 4,
		}
		r, err := Simulate(sc)
		if err != nil {
			return res, err
		}
		res.Runs++
		susp := make([]uint64, c.N)
		decl := make([]uint64, c.N)
		for _, e := range r.Suspicions {
			if e.X == 0 && susp[e.By] == 0 {
				susp[e.By] = e.Tick
			}
		}
		for _, e := range r.Declarations {
			if sc.Live(e.X, e.Tick) {
				res.FalseDeclarations++
			} else if e.X == 0 && decl[e.By] == 0 {
				decl[e.By] = e.Tick
			}
		}
		for s := 1; s < c.N; s++ {
			if decl[s] == 0 || susp[s] == 0 {
				return res, fmt.Errorf("gossipfd: %v n=%d: host %d never declared the crash (phase %d)", c.Variant, c.N, s, p)
			}
			sumS += float64(susp[s]-at) * tick
			d := float64(decl[s]-at) * tick
			sumD += d
			res.MaxDeclare = max(res.MaxDeclare, d)
			cnt++
		}
	}
	res.MeanSuspect = sumS / float64(cnt)
	res.MeanDeclare = sumD / float64(cnt)
	return res, nil
}

// LoadResult is the gossip load of a variant: messages and bytes per round
// in a failure-free steady state, at a given round (the encoded table grows
// with the heartbeat counters: varints of 1 byte below 128, 2 below 16384).
type LoadResult struct {
	Variant          string  `json:"variant"`
	N                int     `json:"n"`
	Round            int     `json:"round"`
	MessagesPerRound int     `json:"messages_per_round"`
	BytesPerRound    int     `json:"bytes_per_round"`
	BytesPerMessage  float64 `json:"bytes_per_message"`
}

// Load simulates rounds 1…round without crashes and reports round round's
// GOSSIP messages and their encoded bytes (Random: plan of seed).
func Load(v fd.Variant, n, round int, seed uint64) (LoadResult, error) {
	res := LoadResult{Variant: v.String(), N: n, Round: round}
	if round < 1 {
		return res, fmt.Errorf("gossipfd: round %d, want ≥ 1", round)
	}
	cfg := fd.Config{N: n, Variant: v, TGossip: RoundTicks, Cleanup: 1 << 40}
	if v == fd.Random {
		p, err := RandomPlan(n, RandomPlanRounds, seed)
		if err != nil {
			return res, err
		}
		cfg.Plan = p
	}
	r, err := Simulate(SimConfig{Node: cfg, DelayMin: 1, DelayMax: 1, Rounds: round})
	if err != nil {
		return res, err
	}
	res.MessagesPerRound = r.Messages[round]
	res.BytesPerRound = r.Bytes[round]
	if res.MessagesPerRound > 0 {
		res.BytesPerMessage = float64(res.BytesPerRound) / float64(res.MessagesPerRound)
	}
	return res, nil
}
