package ringfd

import (
	"fmt"
	"slices"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Limits on a Config. They bound what a decoder may allocate.
const (
	// MaxDaemons is the largest N.
	MaxDaemons = 1 << 13
	// MaxProcs is the largest number of processes per daemon.
	MaxProcs = 64
)

// Trust is the reading of the trust rule of §4.5 ¶2 (see observeTimeout).
type Trust uint8

const (
	// TimerReset (Model T, the default): every fresh heartbeat from the
	// predecessor re-arms a timeout of η; the predecessor is suspected when
	// it falls due. The paper's measured latencies, (δ, η], fit it.
	TimerReset Trust = iota
	// Freshness (Model F, the literal formula with τ'_i = τ_i + η): at every
	// freshness point τ_i + η (τ_i = i·δ, a schedule shared by all daemons)
	// the observer trusts its predecessor only if it holds heartbeat m_i or
	// a higher one.
	Freshness
)

// String is "timer-reset" or "freshness".
func (t Trust) String() string {
	switch t {
	case TimerReset:
		return "timer-reset"
	case Freshness:
		return "freshness"
	}
	return fmt.Sprintf("trust(%d)", uint8(t))
}

// BMG is the topology of the daemons' reliable broadcast (see bmg.go).
type BMG uint8

const (
	// BMGPaper is Algorithm 1's binomial graph: i ± 2^k, k = 0 … ⌈log2 N⌉−1.
	BMGPaper BMG = iota
	// BMGOMPI is Open MPI's variant (comm_ft_reliable_bcast.c): distances
	// 2^k ≤ N/2 in both directions, no send to a daemon known dead, and at
	// distance 1 a known-dead neighbour is replaced by the next daemon in
	// that direction.
	BMGOMPI
)

// String is "paper" or "ompi".
func (b BMG) String() string {
	switch b {
	case BMGPaper:
		return "paper"
	case BMGOMPI:
		return "ompi"
	}
	return fmt.Sprintf("bmg(%d)", uint8(b))
}

// ParseBMG reads "paper" or "ompi".
func ParseBMG(s string) (BMG, error) {
	switch s {
	case "paper":
		return BMGPaper, nil
	case "ompi":
		return BMGOMPI, nil
	}
	return 0, fmt.Errorf("ringfd: unknown BMG %q (want paper or ompi)", s)
}

// Timer ids.
const (
	// TimerHeartbeat fires every δ: the daemon sends a heartbeat to its
	// observer.
	TimerHeartbeat uint64 = 1
	// TimerObserve is the observation timer: the timeout η under
	// TimerReset, the next freshness point under Freshness.
	TimerObserve uint64 = 2
)

// Config is shared by every daemon and process of one job.
type Config struct {
	// N is the number of daemons (nodes), 1 … MaxDaemons.
	N int
	// Procs is the number of application processes per daemon, 0 …
	// MaxProcs.
	Procs int
	// Ring orders the daemons on the observation ring: Ring[k] is the daemon
	// at ring position k, and the daemon at position k observes the one at
	// k−1 (mod N). nil is the identity (§5.6 advises a permutation that
	// separates daemons likely to fail together). Otherwise a permutation of
	// 0 … N−1.
	Ring []core.Rank
	// Period is δ, the heartbeat period, in ticks (0: 1).
	Period uint64
	// Timeout is η, in ticks (0: 2·Period, the paper's "η = δ * 2", §5.2).
	Timeout uint64
	// Trust selects the reading of the trust rule (zero: TimerReset).
	Trust Trust
	// NoSkip turns off the optional skip of mending (§4.5 ¶4: o "may skip
	// over daemons that have already been reported as failed"); by default
	// mending skips them.
	NoSkip bool
	// BMG selects the broadcast topology (zero: BMGPaper).
	BMG BMG
	// LiteralLoop sends, under BMGPaper, to the multiset Algorithm 1's loop
	// lists literally: k = 0 … ⌊log2 N⌋ inclusive, both directions,
	// duplicates and self-sends included. By default each distinct neighbour
	// other than self, k < ⌈log2 N⌉, gets one copy (see bmg.go).
	LiteralLoop bool
	// RequestWaitsForTick makes a daemon asked for heartbeats (HBRequest)
	// wait for its next heartbeat tick; by default it sends one heartbeat at
	// once (see recvHBRequest).
	RequestWaitsForTick bool
	// SeqWindow, when not 0, makes heartbeat numbers wrap: they run 1 …
	// SeqWindow, and a heartbeat counts as fresher than the last one when it
	// is ahead of it by 1 … SeqWindow/2 (serial-number arithmetic, as TCP
	// sequence numbers). It keeps a daemon's state finite for exhaustive
	// checking; with delays bounded by Δ ticks, fewer than ⌈Δ/δ⌉ + 2
	// heartbeats of one emitter are in flight, so a window above twice that
	// orders them as unbounded numbers would. Only with TimerReset; 0 (the
	// default) is unbounded numbers, 2 … 255 otherwise.
	SeqWindow uint64
	// Mutant selects a deliberately broken variant (tests and --mutant
	// only); see Mutants.
	Mutant mutant.Name

	pos []int32 // pos[d] is daemon d's ring position
}

// withDefaults fills the zero fields and validates the rest.
func (c Config) withDefaults() (Config, error) {
	if c.N < 1 || c.N > MaxDaemons {
		return c, fmt.Errorf("ringfd: N=%d daemons out of range 1..%d", c.N, MaxDaemons)
	}
	if c.Procs < 0 || c.Procs > MaxProcs {
		return c, fmt.Errorf("ringfd: %d processes per daemon out of range 0..%d", c.Procs, MaxProcs)
	}
	if c.Period == 0 {
		c.Period = 1
	}
	if c.Timeout == 0 {
		c.Timeout = 2 * c.Period
	}
	if c.Trust > Freshness {
		return c, fmt.Errorf("ringfd: unknown trust rule %d", c.Trust)
	}
	if c.SeqWindow == 1 || c.SeqWindow > 255 || (c.SeqWindow != 0 && c.Trust != TimerReset) {
		return c, fmt.Errorf("ringfd: SeqWindow=%d: want 0, or 2 … 255 with the timer-reset trust rule", c.SeqWindow)
	}
	if c.BMG > BMGOMPI {
		return c, fmt.Errorf("ringfd: unknown BMG %d", c.BMG)
	}
	if c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant) {
		return c, fmt.Errorf("ringfd: unknown mutant %q", c.Mutant)
	}
	c.pos = make([]int32, c.N)
	if c.Ring == nil {
		for d := range c.pos {
			c.pos[d] = int32(d)
		}
		return c, nil
	}
	if len(c.Ring) != c.N {
		return c, fmt.Errorf("ringfd: ring of %d daemons, want N=%d", len(c.Ring), c.N)
	}
	seen := make([]bool, c.N)
	for k, d := range c.Ring {
		if !d.Valid(c.N) || seen[d] {
			return c, fmt.Errorf("ringfd: ring is not a permutation of 0..%d (position %d holds %d)", c.N-1, k, d)
		}
		seen[d] = true
		c.pos[d] = int32(k)
	}
	c.Ring = slices.Clone(c.Ring)
	return c, nil
}

// Ranks is the number of ranks, N·(1+P): daemons and processes.
func (c *Config) Ranks() int { return c.N * (1 + c.Procs) }

// IsDaemon reports whether rank r names a daemon.
func (c *Config) IsDaemon(r core.Rank) bool { return r >= 0 && int(r) < c.N }

// IsProcess reports whether rank r names an application process.
func (c *Config) IsProcess(r core.Rank) bool { return int(r) >= c.N && int(r) < c.Ranks() }

// Host is the daemon hosting process p (p must be a process rank).
func (c *Config) Host(p core.Rank) core.Rank { return core.Rank((int(p) - c.N) / c.Procs) }

// ProcRank is the rank of process j of daemon d: N + d·P + j.
func (c *Config) ProcRank(d core.Rank, j int) core.Rank {
	return core.Rank(c.N + int(d)*c.Procs + j)
}

// Hosted is Hosted{d} as a set of ranks.
func (c *Config) Hosted(d core.Rank) core.RankSet {
	var s core.RankSet
	for j := 0; j < c.Procs; j++ {
		s.Add(c.ProcRank(d, j))
	}
	return s
}

// RingPred is the daemon before d on the ring (d − 1 in ring order).
func (c *Config) RingPred(d core.Rank) core.Rank {
	k := (int(c.pos[d]) + c.N - 1) % c.N
	if c.Ring == nil {
		return core.Rank(k)
	}
	return c.Ring[k]
}

// RingSucc is the daemon after d on the ring (d + 1 in ring order).
func (c *Config) RingSucc(d core.Rank) core.Rank {
	k := (int(c.pos[d]) + 1) % c.N
	if c.Ring == nil {
		return core.Rank(k)
	}
	return c.Ring[k]
}

// Normalize validates cfg and fills its defaults (Period, Timeout), as New
// does; runtimes use it to read the effective δ and η.
func Normalize(cfg Config) (Config, error) { return cfg.withDefaults() }

// New returns the machine of rank r in its initial state: a *Daemon for
// r < N, a *Process otherwise.
func New(r core.Rank, cfg Config) (core.Machine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	return newMachine(r, &cfg)
}

// NewAll returns the machines of every rank, 0 … Ranks()−1, sharing one
// validated Config.
func NewAll(cfg Config) ([]core.Machine, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &cfg
	out := make([]core.Machine, c.Ranks())
	for r := range out {
		out[r], _ = newMachine(core.Rank(r), c)
	}
	return out, nil
}

func newMachine(r core.Rank, c *Config) (core.Machine, error) {
	switch {
	case c.IsDaemon(r):
		return newDaemon(r, c), nil
	case c.IsProcess(r):
		return &Process{p: r, cfg: c}, nil
	}
	return nil, fmt.Errorf("ringfd: rank %d out of range 0..%d", r, c.Ranks()-1)
}
