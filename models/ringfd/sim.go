package ringfd

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// Cost model: the simulator is a unit-less discrete-event simulation in
// integer ticks. A message sent at tick t is delivered at t + delay, the
// delay drawn per message in [DelayMin, DelayMax] (no per-send cost: all
// the sends of one step leave together, so a broadcast's send order is
// unobservable). Timers fire exactly at their deadline; re-arming a timer
// replaces its deadline. Within a tick, crashes come first, then
// deliveries, then timers (so a heartbeat arriving exactly at the deadline
// counts), each class in the order it was scheduled. Messages to a crashed
// rank are counted at the send and dropped at delivery.

// event classes within a tick, in processing order.
const (
	classCrash = iota
	classDeliver
	classTimer
)

type event struct {
	t     uint64
	class uint8
	seq   uint64
	rank  core.Rank // receiver, timer owner or crashed rank
	from  core.Rank
	msg   core.Message
	timer uint64
	gen   uint64
}

type queue []event

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	a, b := &q[i], &q[j]
	if a.t != b.t {
		return a.t < b.t
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.seq < b.seq
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// Log is one notable step of a run, for scenarios and people: a suspicion,
// a mending request, a broadcast.
type Log struct {
	T    uint64
	Text string
}

// Result is one run's report. The JSON names are those of the issue.
type Result struct {
	Seed uint64 `json:"seed"`
	// MessagesDaemon counts the Fault messages between daemons, every one
	// sent, including those to dead daemons (heartbeats excluded).
	MessagesDaemon int `json:"messages_daemon"`
	// MessagesProcess counts the Fault messages from daemons to their
	// hosted processes.
	MessagesProcess int `json:"messages_process"`
	// MessagesHeartbeat counts the heartbeats over the whole run.
	MessagesHeartbeat int `json:"messages_heartbeat"`
	// MessagesRequest counts the mending requests (HBREQUEST).
	MessagesRequest int `json:"messages_request"`
	// HopsMax is the largest number of BMG hops by which a live daemon
	// first learned a failure (the initiator is at 0), over all failures.
	HopsMax int `json:"hops_max"`
	// DetectionLatency is, over the crashes, the largest time from a crash
	// to the first suspicion of the crashed rank (0 for a process: SIGCHLD
	// is immediate), in ticks; -1 if some crash was never suspected.
	DetectionLatency int64 `json:"detection_latency"`
	// PropagationLatency is the time from the first crash until every live
	// daemon and every live process of a live daemon knows every failure,
	// in ticks; -1 if that never happened.
	PropagationLatency int64 `json:"propagation_latency"`
	// Violations lists the properties the run broke, "property: detail".
	Violations []string `json:"violations"`
	// Ticks is the last tick simulated; CrashAt the tick of the Fail
	// crashes.
	Ticks   uint64  `json:"ticks"`
	CrashAt uint64  `json:"crash_at"`
	Seconds float64 `json:"seconds"`

	// Logs are the notable steps, in order; Machines the final states.
	Logs     []Log          `json:"-"`
	Machines []core.Machine `json:"-"`
	// Dead marks the ranks crashed by the end (a daemon's processes too).
	Dead []bool `json:"-"`
	// Detections maps each suspected rank to the tick it was first
	// suspected and by whom.
	Detections map[core.Rank]Detection `json:"-"`
	// Broadcasts counts, per daemon, its ReliableBroadcast calls.
	Broadcasts []int `json:"-"`
}

// Detection is the first suspicion of a rank.
type Detection struct {
	T  uint64
	By core.Rank
}

type sim struct {
	p          Params
	cfg        fd.Config
	rng        *rand.Rand
	ms         []core.Machine
	dead       []bool
	willDie    []bool
	crashT     map[core.Rank]uint64
	q          queue
	seq        uint64
	gens       map[[2]uint64]uint64
	firstHB    []bool
	hops       map[[2]int32]int32
	arcs       map[[2]int32]int
	res        *Result
	faults     int
	firstCrash uint64
	lastLearn  uint64
	failed     core.RankSet
	effs       []core.Effect
	stop       string
	extra      map[string]int
}

// Run simulates one run of p and checks the properties on it. Only bad
// parameters give an error; a broken property is a Violation.
func Run(p Params) (*Result, error) {
	start := time.Now()
	p, cfg, err := p.withDefaults()
	if err != nil {
		return nil, err
	}
	ms, err := fd.NewAll(p.Config())
	if err != nil {
		return nil, err
	}
	s := &sim{p: p, cfg: cfg, ms: ms, rng: rand.New(rand.NewPCG(p.Seed, 0x71e6fd)),
		dead: make([]bool, len(ms)), willDie: make([]bool, len(ms)), crashT: map[core.Rank]uint64{},
		gens: map[[2]uint64]uint64{}, extra: map[string]int{}, firstHB: make([]bool, p.N), hops: map[[2]int32]int32{},
		arcs: map[[2]int32]int{}, res: &Result{Seed: p.Seed, Violations: []string{}, Broadcasts: make([]int, p.N),
			Detections: map[core.Rank]Detection{}}}
	if p.CrashAt == 0 {
		p.CrashAt = 10 * p.Period
		if p.Period > 1 {
			p.CrashAt += s.rng.Uint64N(p.Period)
		}
		s.p.CrashAt = p.CrashAt
	}
	s.res.CrashAt = p.CrashAt
	crashes := s.crashList()
	last := uint64(0)
	daemonFails := 0
	s.firstCrash = ^uint64(0)
	for _, c := range crashes {
		s.schedule(event{t: c.At, class: classCrash, rank: c.Rank})
		s.crashT[c.Rank] = c.At
		s.willDie[c.Rank] = true
		s.failed.Add(c.Rank)
		if cfg.IsDaemon(c.Rank) {
			daemonFails++
			s.cfg.Hosted(c.Rank).Each(func(r core.Rank) { s.willDie[r] = true; s.failed.Add(r) })
		}
		last = max(last, c.At)
		s.firstCrash = min(s.firstCrash, c.At)
	}
	if p.Horizon == 0 {
		step := p.Timeout + p.Period + 2*p.DelayMax + 1
		p.Horizon = max(last, p.CrashAt) + uint64(daemonFails+2)*step + p.Timeout + p.StartupDelay
		s.p.Horizon = p.Horizon
	}
	if p.MaxMessages == 0 {
		per := p.N * (2*bitsLen(p.N) + p.Procs + 2)
		s.p.MaxMessages = 64 * per * (len(crashes) + 1)
	}
	for d := 0; d < p.N; d++ {
		s.step(0, core.Rank(d), core.Call(fd.Start{}))
	}
	for s.q.Len() > 0 && s.stop == "" {
		e := heap.Pop(&s.q).(event)
		if e.t > p.Horizon {
			break
		}
		s.res.Ticks = e.t
		s.dispatch(e)
	}
	if s.stop != "" {
		prop, detail, _ := strings.Cut(s.stop, ": ")
		s.violate(prop, "%s", detail)
	}
	s.res.Ticks = max(s.res.Ticks, p.Horizon)
	s.res.Machines = s.ms
	s.res.Dead = s.dead
	s.finish()
	s.res.Seconds = time.Since(start).Seconds()
	return s.res, nil
}

func bitsLen(n int) int {
	k := 0
	for 1<<k < n {
		k++
	}
	return k
}

// crashList is every crash of the run with its tick.
func (s *sim) crashList() []Crash {
	var out []Crash
	for _, d := range s.p.Fail {
		out = append(out, Crash{Rank: core.Rank(d), At: s.p.CrashAt})
	}
	for _, q := range s.p.FailProcs {
		out = append(out, Crash{Rank: core.Rank(s.p.N + q), At: s.p.CrashAt})
	}
	return append(out, s.p.Crashes...)
}

func (s *sim) schedule(e event) {
	s.seq++
	e.seq = s.seq
	heap.Push(&s.q, e)
}

func (s *sim) logf(t uint64, format string, args ...any) {
	if !s.p.Trace {
		return
	}
	s.res.Logs = append(s.res.Logs, Log{T: t, Text: fmt.Sprintf(format, args...)})
}

func (s *sim) dispatch(e event) {
	switch e.class {
	case classCrash:
		s.crash(e.t, e.rank)
	case classDeliver:
		if !s.dead[e.rank] {
			s.step(e.t, e.rank, core.Receive(e.from, e.msg))
		}
	case classTimer:
		if !s.dead[e.rank] && s.gens[[2]uint64{uint64(e.rank), e.timer}] == e.gen {
			s.step(e.t, e.rank, core.Timer(e.timer))
		}
	}
}

// crash stops rank r (and, for a daemon, its hosted processes); the host of
// a crashed process observes it at once (SIGCHLD, §4.4).
func (s *sim) crash(t uint64, r core.Rank) {
	if s.dead[r] {
		return
	}
	s.dead[r] = true
	s.logf(t, "%v crashes", r)
	if s.cfg.IsDaemon(r) {
		s.cfg.Hosted(r).Each(func(q core.Rank) { s.dead[q] = true })
		return
	}
	if h := s.cfg.Host(r); !s.dead[h] {
		s.step(t, h, core.Suspect(r))
	}
}

// step applies ev to rank r at tick t and carries out the effects.
func (s *sim) step(t uint64, r core.Rank, ev core.Event) {
	m := s.ms[r]
	// The ids r may learn in this step, to time and count hops.
	var candidates []core.Rank
	switch ev.Kind {
	case core.EvReceive:
		if f, ok := ev.Msg.(fd.Fault); ok {
			f.IDs.Each(func(x core.Rank) {
				if !knows(m, x) {
					candidates = append(candidates, x)
				}
			})
		}
	case core.EvTimer:
		if d, ok := m.(*fd.Daemon); ok && ev.Timer == fd.TimerObserve && d.Pred() != core.NoRank {
			candidates = s.reportSet(d.Pred(), m)
		}
	case core.EvSuspect:
		if !knows(m, ev.Peer) {
			candidates = []core.Rank{ev.Peer}
		}
	}
	effs, err := m.Step(ev, s.effs[:0])
	s.effs = effs[:0]
	if err != nil {
		s.stop = fmt.Sprintf("error: %v at tick %d: %v", r, t, err)
		return
	}
	s.learn(t, r, ev, candidates)
	faults := 0
	for _, e := range effs {
		switch e.Kind {
		case core.EffSend:
			s.send(t, r, e.To, e.Msg)
			if _, ok := e.Msg.(fd.Fault); ok {
				faults++
			}
		case core.EffSetTimer:
			k := [2]uint64{uint64(r), e.Timer}
			s.gens[k]++
			s.schedule(event{t: t + e.Delay, class: classTimer, rank: r, timer: e.Timer, gen: s.gens[k]})
		case core.EffSuspect:
			if _, seen := s.res.Detections[e.Peer]; !seen {
				s.res.Detections[e.Peer] = Detection{T: t, By: r}
			}
			s.logf(t, "%v suspects %v", r, e.Peer)
		}
	}
	if faults > 0 && s.cfg.IsDaemon(r) {
		s.res.Broadcasts[r]++
		if ev.Kind == core.EvReceive && len(candidates) == 0 {
			s.violate(PropForwardOnce, "%v forwarded %v at tick %d though it carried no new id", r, ev.Msg, t)
		}
	}
	if s.faults > s.p.MaxMessages {
		s.stop = fmt.Sprintf("%s: message storm, over %d Fault messages by tick %d", PropForwardOnce, s.p.MaxMessages, t)
	}
}

// reportSet is what StartPropagation(q) at daemon m would add: the ids of
// {q} ∪ Hosted{q} it does not know yet.
func (s *sim) reportSet(q core.Rank, m core.Machine) []core.Rank {
	var out []core.Rank
	if !knows(m, q) {
		out = append(out, q)
		for j := 0; j < s.cfg.Procs; j++ {
			if x := s.cfg.ProcRank(q, j); !knows(m, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

func knows(m core.Machine, x core.Rank) bool {
	switch n := m.(type) {
	case *fd.Daemon:
		return n.Knows(x)
	case *fd.Process:
		return n.Knows(x)
	}
	return false
}

// learn records, for each candidate id r now knows, its hop count (daemons)
// and the tick a live-to-the-end entity learned a failure.
func (s *sim) learn(t uint64, r core.Rank, ev core.Event, candidates []core.Rank) {
	m := s.ms[r]
	for _, x := range candidates {
		if !knows(m, x) {
			continue
		}
		if s.failed.Has(x) && !s.willDie[r] && !(s.cfg.IsProcess(r) && s.willDie[s.cfg.Host(r)]) {
			s.lastLearn = max(s.lastLearn, t)
		}
		if !s.cfg.IsDaemon(r) {
			continue
		}
		h := int32(0)
		if ev.Kind == core.EvReceive {
			h = s.hops[[2]int32{int32(ev.From), int32(x)}] + 1
		}
		s.hops[[2]int32{int32(r), int32(x)}] = h
		if !s.willDie[r] && int(h) > s.res.HopsMax {
			s.res.HopsMax = int(h)
		}
	}
	if ev.Kind == core.EvReceive {
		if _, ok := ev.Msg.(fd.HBRequest); ok {
			s.logf(t, "%v starts heartbeats to %v", r, ev.From)
		}
	}
}

// send counts and schedules one message.
func (s *sim) send(t uint64, from, to core.Rank, msg core.Message) {
	delay := s.p.DelayMin
	if s.p.DelayMax > s.p.DelayMin {
		delay += s.rng.Uint64N(s.p.DelayMax - s.p.DelayMin + 1)
	}
	switch m := msg.(type) {
	case fd.HB:
		s.res.MessagesHeartbeat++
		if !s.firstHB[from] {
			s.firstHB[from] = true
			delay += s.p.StartupDelay
		}
	case fd.HBRequest:
		s.res.MessagesRequest++
		s.logf(t, "%v requests heartbeats from %v", from, to)
	case fd.Fault:
		s.faults++
		if s.cfg.IsDaemon(to) {
			s.res.MessagesDaemon++
			s.arcs[[2]int32{int32(from), int32(to)}]++
		} else {
			s.res.MessagesProcess++
		}
		_ = m
	}
	s.schedule(event{t: t + delay, class: classDeliver, rank: to, from: from, msg: msg})
}
