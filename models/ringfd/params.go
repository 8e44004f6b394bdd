// Package ringfd is the model of the observation-ring failure detector
// (statemachine/ringfd; Zhong et al., EuroMPI'19): a deterministic discrete-event simulator
// that drives the same machines at scale, with constant or seeded-random
// message delays, and checks the detector's properties on every run.
package ringfd

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// Crash is one crash: a daemon (with its hosted processes) or a single
// process, by rank (statemachine/ringfd's layout: daemons 0 … N−1, process
// j of daemon d at N + d·P + j), at tick At.
type Crash struct {
	Rank core.Rank
	At   uint64
}

// Params is one simulation run, the flags of
// `ftcheck simulate ringfd --n N --procs P --fail LIST [--fail-procs LIST]
// --period δ --timeout η --seed S --json`. Times are in ticks.
type Params struct {
	// N daemons, Procs application processes per daemon.
	N, Procs int
	// Fail lists the daemons that crash (with their processes) at CrashAt.
	Fail []int
	// FailProcs lists the processes that crash alone at CrashAt, by process
	// number q = d·Procs + j (rank N + q).
	FailProcs []int
	// Crashes adds crashes at their own ticks.
	Crashes []Crash
	// Period is δ and Timeout is η, in ticks (0: 10 and 2·Period).
	Period, Timeout uint64
	// DelayMin and DelayMax bound every message's delay in ticks, drawn
	// uniformly from the seed (DelayMin = DelayMax: constant). Both 0 with
	// DelayMax 0: every message takes 1 tick. ZeroDelay makes them 0
	// (delivery in the tick of the send, as the spec's worked examples).
	DelayMin, DelayMax uint64
	ZeroDelay          bool
	// StartupDelay is added to the delay of every daemon's first heartbeat
	// (§5.2: "daemons need some time to launch the processes when starting
	// the job which causes heartbeat delay").
	StartupDelay uint64
	// CrashAt is the tick of the Fail and FailProcs crashes (0: 10·δ plus a
	// phase in [0, δ) drawn from the seed).
	CrashAt uint64
	// Horizon is the last tick simulated (0: long enough for every crash to
	// be detected one timeout after another and broadcast).
	Horizon uint64
	// Seed draws the crash phase and the delays.
	Seed uint64
	// The detector's options (statemachine/ringfd.Config).
	Trust               fd.Trust
	NoSkip              bool
	BMG                 fd.BMG
	LiteralLoop         bool
	RequestWaitsForTick bool
	Ring                []core.Rank
	Mutant              mutant.Name
	// Trace keeps the notable steps in Result.Logs.
	Trace bool
	// MaxMessages stops a run that sends more Fault messages (0: 64 times
	// one broadcast per daemon per failure, a storm guard).
	MaxMessages int
}

// Config is the detector configuration of p.
func (p *Params) Config() fd.Config {
	return fd.Config{N: p.N, Procs: p.Procs, Ring: p.Ring, Period: p.Period, Timeout: p.Timeout,
		Trust: p.Trust, NoSkip: p.NoSkip, BMG: p.BMG, LiteralLoop: p.LiteralLoop,
		RequestWaitsForTick: p.RequestWaitsForTick, Mutant: p.Mutant}
}

// withDefaults validates p and fills its zero fields.
func (p Params) withDefaults() (Params, fd.Config, error) {
	if p.Period == 0 {
		p.Period = 10
	}
	cfg, err := fd.Normalize(p.Config())
	if err != nil {
		return p, cfg, err
	}
	p.Timeout = cfg.Timeout
	switch {
	case p.ZeroDelay:
		p.DelayMin, p.DelayMax = 0, 0
	case p.DelayMax == 0 && p.DelayMin == 0:
		p.DelayMin, p.DelayMax = 1, 1
	case p.DelayMax < p.DelayMin:
		return p, cfg, fmt.Errorf("ringfd: delay range [%d, %d] is empty", p.DelayMin, p.DelayMax)
	}
	seen := map[core.Rank]bool{}
	add := func(r core.Rank, at uint64) error {
		if r < 0 || int(r) >= cfg.Ranks() {
			return fmt.Errorf("ringfd: crash of rank %d out of range 0..%d", r, cfg.Ranks()-1)
		}
		if seen[r] {
			return fmt.Errorf("ringfd: rank %v crashes twice", r)
		}
		seen[r] = true
		return nil
	}
	for _, d := range p.Fail {
		if d < 0 || d >= p.N {
			return p, cfg, fmt.Errorf("ringfd: --fail %d: daemon out of range 0..%d", d, p.N-1)
		}
	}
	for _, q := range p.FailProcs {
		if q < 0 || q >= p.N*p.Procs {
			return p, cfg, fmt.Errorf("ringfd: --fail-procs %d: process out of range 0..%d", q, p.N*p.Procs-1)
		}
	}
	for _, d := range p.Fail {
		if err := add(core.Rank(d), 0); err != nil {
			return p, cfg, err
		}
	}
	for _, q := range p.FailProcs {
		if err := add(core.Rank(p.N+q), 0); err != nil {
			return p, cfg, err
		}
	}
	for _, c := range p.Crashes {
		if err := add(c.Rank, c.At); err != nil {
			return p, cfg, err
		}
	}
	if p.Horizon != 0 && p.CrashAt > p.Horizon {
		return p, cfg, fmt.Errorf("ringfd: crash at tick %d after the horizon %d", p.CrashAt, p.Horizon)
	}
	p.Fail = slices.Clone(p.Fail)
	p.FailProcs = slices.Clone(p.FailProcs)
	return p, cfg, nil
}

// ParseList reads a comma-separated list of integers and ranges, such as
// "3,5-7" (3, 5, 6, 7). The empty string is the empty list.
func ParseList(s string) ([]int, error) {
	var out []int
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("list %q: %q is not an integer", s, lo)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("list %q: bad range %q", s, part)
			}
		}
		for x := a; x <= b; x++ {
			out = append(out, x)
		}
	}
	return out, nil
}
