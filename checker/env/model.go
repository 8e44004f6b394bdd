package env

import (
	"fmt"
	"maps"
	"strings"
	"sync/atomic"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Model is the environment around N nodes; it implements
// checker.Model[*World] and is safe for concurrent use.
type Model struct {
	cfg      Config
	name     string
	height   int              // of the process tree
	fail     core.RankSet     // Config.Fail
	survive  core.RankSet     // Config.Survivors
	sched    [][][]core.Input // Schedules, or one empty alternative
	schedEnc [][][]byte       // canonical encoding of sched[k][p]
	init     []*World
	reads    checker.StepReads // what the transition properties read (independence.go)
	sidx     schedIndex        // Decode: schedules → alternative (decode.go)
	procs    memo[cachedProc]  // Decode: decoded procs by bytes (proccache.go)
	states   memo[nodeState]   // interned node states (nodes.go)
	steps    memo[stepMemo]    // memoized steps (nodes.go)
	msgs     memo[cachedMsg]   // Decode: decoded messages by bytes (proccache.go)
	stateIDs atomic.Uint64     // the last nodeState id given
	inEnc    [][][]string      // encoding of each call input sched[k][p][j] (a step's key)
	pl       placement         // Config.Hosts (hosts.go)
	recycle  recycler          // what Recycle does (recycle.go)
}

var _ checker.Model[*World] = (*Model)(nil)

// New validates cfg, builds the N initial nodes and returns the model. Its
// errors wrap ErrConfig.
func New(cfg Config) (*Model, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg.Fail = append([]core.Rank(nil), cfg.Fail...)
	cfg.Survivors = append([]core.Rank(nil), cfg.Survivors...)
	cfg.Wakeups = append([]uint64(nil), cfg.Wakeups...)
	cfg.Params = maps.Clone(cfg.Params)
	cfg.Hosts = append([]core.Rank(nil), cfg.Hosts...)[:len(cfg.Hosts):len(cfg.Hosts)]
	if len(cfg.Hosts) == 0 {
		cfg.Hosts = nil
	}
	m := &Model{cfg: cfg, height: heightFor(cfg.N), sched: cfg.Schedules, pl: newPlacement(cfg.Hosts)}
	m.procs.bits, m.states.bits, m.steps.bits, m.msgs.bits = procCacheBits, stateBits, stepBits, msgBits
	m.reads = stepReads(cfg.Properties)
	for _, r := range cfg.Fail {
		m.fail.Add(r)
	}
	for _, r := range cfg.Survivors {
		m.survive.Add(r)
	}
	if len(m.sched) == 0 {
		m.sched = [][][]core.Input{make([][]core.Input, cfg.N)}
	}
	nodes := make([]core.Machine, cfg.N)
	for p := range nodes {
		nodes[p] = cfg.NewNode(core.Rank(p), cfg.N)
		if nodes[p] == nil {
			return nil, fmt.Errorf("%w: NewNode(%v, %d) returned nil", ErrConfig, core.Rank(p), cfg.N)
		}
	}
	if err := checkDropAbsorbed(&cfg); err != nil {
		return nil, err
	}
	if err := checkForget(&cfg, nodes); err != nil {
		return nil, err
	}
	if err := checkRecoverable(&cfg, nodes); err != nil {
		return nil, err
	}
	ns := make([]*nodeState, cfg.N)
	for p, node := range nodes {
		ns[p] = m.intern(core.Rank(p), node)
	}
	for k, alt := range m.sched {
		enc := make([][]byte, cfg.N)
		ins := make([][]string, cfg.N)
		procs := make([]*proc, cfg.N)
		for p := range procs {
			var b, tmp []byte
			b = core.AppendUint(b, uint64(len(alt[p])))
			for _, in := range alt[p] {
				tmp = in.AppendBinary(tmp[:0])
				b = core.AppendBytes(b, tmp)
				ins[p] = append(ins[p], string(tmp))
			}
			enc[p] = b
			pr := &proc{node: ns[p].node, ns: ns[p], live: true}
			pr.agg = m.weigh(pr, p, core.RankSet{}, len(alt[p]))
			procs[p] = pr
		}
		m.schedEnc = append(m.schedEnc, enc)
		m.inEnc = append(m.inEnc, ins)
		m.init = append(m.init, &World{m: m, alt: k, root: build(procs, m.height), actor: core.NoRank})
	}
	var name strings.Builder
	name.WriteString(cfg.Name)
	if cfg.Name == "" {
		name.WriteString("env")
	}
	fmt.Fprintf(&name, " n=%d crashes=%d", cfg.N, cfg.Crashes)
	if cfg.Network == FIFO {
		name.WriteString(" fifo")
	}
	if cfg.Timing == BoundedDelay {
		fmt.Fprintf(&name, " delta=%d", cfg.Delta)
	}
	if cfg.Loss == LossOnCrash {
		name.WriteString(" lose-on-crash")
	}
	if cfg.Loss == LossAny {
		fmt.Fprintf(&name, " loss=%d", cfg.Losses)
	}
	if cfg.Duplicates > 0 {
		fmt.Fprintf(&name, " dup=%d", cfg.Duplicates)
	}
	if cfg.Faults == CrashRecovery {
		fmt.Fprintf(&name, " recoveries=%d", cfg.Recoveries)
	}
	if cfg.Blocking {
		name.WriteString(" blocking")
	}
	if len(cfg.Fail) > 0 {
		name.WriteString(" fail=")
		for i, r := range cfg.Fail {
			if i > 0 {
				name.WriteByte(',')
			}
			fmt.Fprint(&name, int32(r))
		}
	}
	if len(cfg.Survivors) > 0 {
		name.WriteString(" survivors=")
		for i, r := range cfg.Survivors {
			if i > 0 {
				name.WriteByte(',')
			}
			fmt.Fprint(&name, int32(r))
		}
	}
	if len(cfg.Wakeups) > 0 {
		fmt.Fprintf(&name, " wakeups=%d", len(cfg.Wakeups))
	}
	switch cfg.Detector {
	case DetectorNone:
		name.WriteString(" no-detector")
	case DetectorLocal:
		name.WriteString(" local-detector")
	}
	if cfg.Hosts != nil {
		name.WriteString(" hosts")
	}
	if cfg.CrashBeforeWakeup {
		name.WriteString(" crash-before-wakeup")
	}
	if cfg.ForgetCrashed {
		name.WriteString(" forget-crashed")
	}
	if cfg.DropAbsorbed {
		name.WriteString(" drop-absorbed")
	}
	m.name = name.String()
	return m, nil
}

// Name is the protocol name and the environment's parameters, such as
// "era n=4 crashes=1 fifo lose-on-crash blocking fail=0,2" (flags only when
// set).
func (m *Model) Name() string { return m.name }

// N is the number of processes.
func (m *Model) N() int { return m.cfg.N }

// Config returns a copy of the configuration (slices and maps shared: do not
// modify them).
func (m *Model) Config() Config { return m.cfg }

// Params returns a copy of Config.Params.
func (m *Model) Params() map[string]string { return maps.Clone(m.cfg.Params) }

// Init returns one initial state per schedule alternative, in order. The
// states are shared between calls (they are immutable).
func (m *Model) Init() []*World { return append([]*World(nil), m.init...) }

// Properties returns Config.Properties.
func (m *Model) Properties() []checker.Property[*World] { return m.cfg.Properties }

// Quiescent reports whether the run may end in s: nothing but budget
// crashes and restarts (Recover) is enabled (no message in flight to a live process, no pending
// detector notification, no call a live process can make, no armed timer
// of a live process, no Config.Wakeups entry left; under BoundedDelay no
// message in flight at all, open or not) and every Fail rank has
// crashed (Fail ranks must crash in every run, at a step of the
// explorer's choosing). A blocking call that never returned leaves its
// process's later calls disabled, so a stuck state is quiescent (and the
// liveness properties checked there see it). O(1).
func (m *Model) Quiescent(s *World) bool {
	return s.root.sum.work(m.detc(s)) == 0 && s.nfail == len(m.cfg.Fail) && s.clock == len(m.cfg.Wakeups) &&
		s.root.sum.pend == 0 && s.root.sum.later == 0
}

// detc is the number of crashes the perfect detector reports to every live
// process: 0 with DetectorNone and DetectorLocal (whose pending detections
// each host counts itself, localPending).
func (m *Model) detc(s *World) int64 {
	if m.cfg.Detector != DetectorPerfect {
		return 0
	}
	return int64(s.ncrash)
}

// budget reports whether a budget crash is enabled in s at all (the
// crash budget is not spent and, with CrashBeforeWakeup, no Clock yet).
func (m *Model) budget(s *World) bool {
	return s.spent < m.cfg.Crashes && !(m.cfg.CrashBeforeWakeup && s.clock > 0)
}

// clockDue reports whether a Clock action is enabled in s: a wakeup is
// left and nothing but crashes is enabled.
func (m *Model) clockDue(s *World) bool {
	return s.clock < len(m.cfg.Wakeups) && s.root.sum.work(m.detc(s)) == 0 && s.root.sum.pend == 0
}

// tickDue reports whether a Tick action is enabled in s: under
// LockStepRounds when nothing but crashes is enabled and a live process has
// a timer armed for the next round; under BoundedDelay see tickDueDelay.
func (m *Model) tickDue(s *World) bool {
	if m.timed() {
		return m.tickDueDelay(s)
	}
	return s.root.sum.pend > 0 && s.root.sum.work(m.detc(s)) == 0
}

// callable reports whether live process p may make its next call, given the
// length of its schedule.
func (m *Model) callable(p *proc, nsched int) bool {
	return p.live && int(p.made) < nsched && !(m.cfg.Blocking && p.awaiting)
}
