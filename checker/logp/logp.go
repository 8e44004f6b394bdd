// Package logp is a deterministic discrete-event simulator of the LogP
// model (Culler et al.; Küttler et al. PPoPP'19 §2.2) over core.Machine
// nodes. It knows nothing of any protocol.
//
// # Timing
//
// Time is an integer. A process has a send port and a receive port (one
// port for both when Overlap is Off).
//
//   - A send started at s occupies the sender's send port during the send
//     overhead [s, s+o). The message leaves at s+o and arrives at the
//     receiver at s+o+L (L counts from the end of the send overhead to the
//     arrival; §2.2 "the message propagates via the network for L time
//     steps").
//   - An arrived message waits until the receive port is free, then the
//     receive overhead [r, r+o) runs, r ≥ arrival; the machine steps with
//     EvReceive at r+o. So an uncontended message is handed to the machine
//     2o+L after its send started (the proof of Lemma 2: "receives the
//     second message after o + 2o + L").
//   - A process sends at most one message and receives at most one at a
//     time; sends queue FIFO in the order the machine emitted them, and so
//     do receives in order of arrival.
//   - The gap g must satisfy g ≤ o (§2.2: "g ≤ o always holds"), so it
//     never delays anything and is otherwise ignored.
//   - Messages to failed processes cost the sender o and are dropped on
//     arrival; the arrival time counts as activity (the proof of Lemma 3
//     does not charge a receive overhead for a message to a dead process).
//
// # Ties
//
// Events of one instant run in classes: wakeups marked First, calls,
// arrivals, receive completions and send-port releases (in the order Prio
// says: receives first by default, so a machine sees a message that
// completes at t before it chooses its next send at t), then timers. Within a class events run in
// the order they were scheduled, which is itself deterministic, so a run is
// a function of its inputs.
//
// # Send slots
//
// If Options.SendSlotTimer is non-zero, a machine that arms that timer
// (EffSetTimer, any delay) is stepped with EvTimer(SendSlotTimer) as soon as
// its send port is free and its send queue empty: it can then decide its
// next message with everything it has received so far.
package logp

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ftkernel/ftkernel/core"
)

// Toggle is an option whose zero value is its default.
type Toggle uint8

const (
	Default Toggle = iota
	On
	Off
)

// Prio says which goes first when a receive completes and the send port
// frees at the same instant on one process (and, with Overlap Off, which
// waiting operation takes the free port).
type Prio uint8

const (
	// PrioRecv: receives first (default).
	PrioRecv Prio = iota
	// PrioSend: sends first.
	PrioSend
)

// Call is an EvCall injected into a process.
type Call struct {
	At    int64
	Proc  core.Rank
	Input core.Input
}

// Wakeup is an EvTimer delivered to every live process at the same time
// (a synchronized clock, e.g. the synchronized start of correction).
type Wakeup struct {
	At    int64
	Timer uint64
	// First delivers the wakeup before anything else of instant At (a
	// deadline: what happens at At happens after it, e.g. the end of the
	// gossip phase of Corrected Gossip, so that no gossip send starts at
	// At). Otherwise it runs with the timers, after everything else.
	First bool
}

// Options are the model's parameters and the run's inputs.
type Options struct {
	// L, O, G are LogP's latency, overhead and gap. O ≥ 1, L ≥ 0, G ≤ O.
	L, O, G int64
	// Overlap lets a send overhead overlap a receive overhead on the same
	// process (default On, §2.2).
	Overlap Toggle
	// Prio breaks ties between a completing receive and a freeing send
	// port (default PrioRecv).
	Prio Prio
	// SendSlotTimer is the timer id that means "when my send port is
	// free"; 0 disables it.
	SendSlotTimer uint64
	// Calls are injected at their times; latencies count from the first.
	Calls []Call
	// Wakeups are delivered to every live process.
	Wakeups []Wakeup
	// CorrectionKinds are the message kinds counted as correction messages;
	// the correction phase starts when the first of them starts its send.
	CorrectionKinds []string
	// DisseminationKinds are the message kinds whose delivery colors a
	// process "by dissemination" for GapMax (a call always does). Empty:
	// every delivery counts.
	DisseminationKinds []string
	// Log records every send, receive and drop in Result.Log.
	Log bool
}

// Op is what a log entry records.
type Op uint8

const (
	OpSend Op = iota + 1 // send overhead at Proc, to Peer
	OpRecv               // receive overhead at Proc, from Peer
	OpDrop               // message from Peer arrived at failed Proc (Start = End = arrival)
)

// String is "send", "recv" or "drop".
func (o Op) String() string {
	switch o {
	case OpSend:
		return "send"
	case OpRecv:
		return "recv"
	case OpDrop:
		return "drop"
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Entry is one log record.
type Entry struct {
	Op         Op
	Proc, Peer core.Rank
	Start, End int64
	Kind       string
}

// Result is the outcome of one run. Slices are reused by the next Run of
// the same Sim.
type Result struct {
	P, Live int
	// Uncolored counts live processes that never delivered.
	Uncolored int
	// Duplicates counts processes that delivered more than once.
	Duplicates int
	// ColoringLatency: from the first call to the last delivery of a live
	// process.
	ColoringLatency int64
	// QuiescenceLatency: from the first call until all activity (send and
	// receive overheads, arrivals at failed processes) is over.
	QuiescenceLatency int64
	// CorrectionStart is when the first correction message started its
	// send (-1: none); CorrectionLatency runs from there to quiescence.
	CorrectionStart, CorrectionLatency int64
	// Messages counts all sends, including those to failed processes;
	// CorrectionMessages those of a correction kind; Dropped those to
	// failed processes.
	Messages, CorrectionMessages, Dropped int64
	// SentPerProc counts the sends of each process.
	SentPerProc []int32
	// DeliveredAt is each process's first delivery time (-1: never).
	DeliveredAt []int64
	// GapMax is the longest run of consecutive ranks (cyclically) that are
	// failed or were not colored by dissemination (§3.1 "maximum gap size").
	GapMax int
	// Log is the event log (Options.Log).
	Log []Entry
}

// Sim runs simulations; it keeps its buffers between runs. Not safe for
// concurrent use (use one Sim per goroutine).
type Sim struct {
	opt     Options
	overlap bool

	nodes  []core.Machine
	failed []bool
	busy   []int64 // port free times: send port p, receive port P+p (or p)
	sq, rq []queue // per-process send and receive queues (arena links)
	armed  []bool
	dissem []bool
	arena  []pending
	free   int32
	timers []uint64
	effs   []core.Effect

	now      int64
	cur      *bucket
	buckets  map[int64]*bucket
	times    timeHeap // bucket times
	spare    []*bucket
	hot      [8]*bucket // recently used buckets by time mod 8
	res      Result
	curCause bool // the step in progress colors by dissemination
	start    int64
	maxEnd   int64
	corrKind []string
	disKind  []string
}

type queue struct{ head, tail int32 }

type pending struct {
	from, to core.Rank
	next     int32
	msg      core.Message
}

const (
	evWakeFirst uint8 = iota
	evCall
	evArrive
	evRecvDone
	evSendFree
	evTimer
	nClasses
)

type event struct {
	kind uint8
	p    core.Rank
	arg  int32
}

type bucket struct {
	t   int64
	cls [nClasses][]event
}

// New checks the options and returns a simulator.
func New(opt Options) (*Sim, error) {
	if opt.O < 1 || opt.L < 0 || opt.G < 0 || opt.G > opt.O {
		return nil, fmt.Errorf("logp: need o ≥ 1, L ≥ 0, 0 ≤ g ≤ o; got L=%d o=%d g=%d", opt.L, opt.O, opt.G)
	}
	if opt.Prio > PrioSend || opt.Overlap > Off {
		return nil, errors.New("logp: bad option value")
	}
	s := &Sim{opt: opt, overlap: opt.Overlap != Off, buckets: map[int64]*bucket{}}
	s.corrKind, s.disKind = opt.CorrectionKinds, opt.DisseminationKinds
	return s, nil
}

// Options returns the simulator's options.
func (s *Sim) Options() Options { return s.opt }

func (s *Sim) recvPort(p core.Rank) int {
	if s.overlap {
		return len(s.nodes) + int(p)
	}
	return int(p)
}

// Run simulates nodes (process r is nodes[r]) with the processes in failed
// crashed from the start: they never step, and messages to them are
// dropped. The machines are stepped in place. A machine's Step error ends
// the run with that error.
func (s *Sim) Run(nodes []core.Machine, failed core.RankSet) (*Result, error) {
	P := len(nodes)
	if P == 0 {
		return nil, errors.New("logp: no processes")
	}
	s.nodes = nodes
	s.failed = resize(s.failed, P)
	s.armed = resize(s.armed, P)
	s.dissem = resize(s.dissem, P)
	s.sq = resize(s.sq, P)
	s.rq = resize(s.rq, P)
	s.busy = resize(s.busy, 2*P)
	live := P
	for r := range P {
		s.failed[r] = failed.Has(core.Rank(r))
		if s.failed[r] {
			live--
		}
		s.sq[r] = queue{-1, -1}
		s.rq[r] = queue{-1, -1}
	}
	s.arena = s.arena[:0]
	s.free = -1
	s.timers = s.timers[:0]
	for _, b := range s.buckets {
		s.release(b)
	}
	clear(s.buckets)
	s.times = s.times[:0]
	res := &s.res
	*res = Result{P: P, Live: live, CorrectionStart: -1, SentPerProc: resize(res.SentPerProc, P), DeliveredAt: resize(res.DeliveredAt, P), Log: res.Log[:0]}
	for r := range res.DeliveredAt {
		res.DeliveredAt[r] = -1
	}
	s.start = math.MaxInt64
	for i, c := range s.opt.Calls {
		if !c.Proc.Valid(P) {
			return nil, fmt.Errorf("logp: call to invalid process %v", c.Proc)
		}
		s.start = min(s.start, c.At)
		s.schedule(c.At, evCall, c.Proc, int32(i))
	}
	if s.start == math.MaxInt64 {
		s.start = 0
	}
	for _, w := range s.opt.Wakeups {
		s.timers = append(s.timers, w.Timer)
		kind := evTimer
		if w.First {
			kind = evWakeFirst
		}
		for r := range P {
			if !s.failed[r] {
				s.schedule(w.At, kind, core.Rank(r), int32(len(s.timers)-1))
			}
		}
	}
	s.maxEnd = s.start
	var err error
	for len(s.times) > 0 && err == nil {
		t := s.popTime()
		b := s.buckets[t]
		delete(s.buckets, t)
		s.now, s.cur = t, b
		err = s.runBucket(b)
		s.cur = nil
		s.release(b)
	}
	if err != nil {
		return nil, err
	}
	s.finish(res)
	return res, nil
}

func resize[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	x = x[:n]
	clear(x)
	return x
}

func (s *Sim) order() [nClasses]uint8 {
	if s.opt.Prio == PrioSend {
		return [nClasses]uint8{evWakeFirst, evCall, evArrive, evSendFree, evRecvDone, evTimer}
	}
	return [nClasses]uint8{evWakeFirst, evCall, evArrive, evRecvDone, evSendFree, evTimer}
}

func (s *Sim) runBucket(b *bucket) error {
	ord := s.order()
	for again := true; again; {
		again = false
		for _, c := range ord {
			for i := 0; i < len(b.cls[c]); i++ {
				if err := s.handle(b.cls[c][i]); err != nil {
					return err
				}
			}
			if len(b.cls[c]) > 0 {
				b.cls[c] = b.cls[c][:0]
				again = true
			}
		}
	}
	return nil
}

func (s *Sim) schedule(t int64, kind uint8, p core.Rank, arg int32) {
	b := s.cur
	if b == nil || b.t != t {
		if c := s.hot[t&7]; c != nil && c.t == t {
			b = c
		} else {
			b = s.buckets[t]
		}
		if b == nil {
			if n := len(s.spare); n > 0 {
				b = s.spare[n-1]
				s.spare = s.spare[:n-1]
			} else {
				b = &bucket{}
			}
			b.t = t
			s.buckets[t] = b
			s.pushTime(t)
		}
		s.hot[t&7] = b
	}
	b.cls[kind] = append(b.cls[kind], event{kind: kind, p: p, arg: arg})
}

func (s *Sim) release(b *bucket) {
	if s.hot[b.t&7] == b {
		s.hot[b.t&7] = nil
	}
	for i := range b.cls {
		b.cls[i] = b.cls[i][:0]
	}
	s.spare = append(s.spare, b)
}

// timeHeap is the min-heap of bucket times (container/heap). A time is in
// it at most once (one bucket per time), so the pop order is the order of
// the times, whatever the heap's tie-breaking.
type timeHeap []int64

func (h timeHeap) Len() int           { return len(h) }
func (h timeHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h timeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap) Push(x any)        { *h = append(*h, x.(int64)) }
func (h *timeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (s *Sim) pushTime(t int64) { heap.Push(&s.times, t) }

func (s *Sim) popTime() int64 { return heap.Pop(&s.times).(int64) }

func (s *Sim) alloc(from, to core.Rank, m core.Message) int32 {
	if i := s.free; i >= 0 {
		s.free = s.arena[i].next
		s.arena[i] = pending{from: from, to: to, next: -1, msg: m}
		return i
	}
	s.arena = append(s.arena, pending{from: from, to: to, next: -1, msg: m})
	return int32(len(s.arena) - 1)
}

func (s *Sim) freeSlot(i int32) {
	s.arena[i] = pending{next: s.free}
	s.free = i
}

func (s *Sim) enqueue(q *queue, i int32) {
	if q.tail < 0 {
		q.head = i
	} else {
		s.arena[q.tail].next = i
	}
	q.tail = i
}

func (s *Sim) dequeue(q *queue) int32 {
	i := q.head
	q.head = s.arena[i].next
	if q.head < 0 {
		q.tail = -1
	}
	s.arena[i].next = -1
	return i
}

func (s *Sim) handle(e event) error {
	t := s.now
	p := e.p
	switch e.kind {
	case evCall:
		if s.failed[p] {
			return nil
		}
		s.curCause = true
		if err := s.step(p, core.Call(s.opt.Calls[e.arg].Input)); err != nil {
			return err
		}
		return s.kick(p, false)
	case evTimer, evWakeFirst:
		s.curCause = false
		if err := s.step(p, core.Timer(s.timers[e.arg])); err != nil {
			return err
		}
		return s.kick(p, false)
	case evArrive:
		m := &s.arena[e.arg]
		if s.failed[m.to] {
			s.res.Dropped++
			s.maxEnd = max(s.maxEnd, t)
			if s.opt.Log {
				s.res.Log = append(s.res.Log, Entry{Op: OpDrop, Proc: m.to, Peer: m.from, Start: t, End: t, Kind: m.msg.Kind()})
			}
			s.freeSlot(e.arg)
			return nil
		}
		s.enqueue(&s.rq[p], e.arg)
		// Not top level: a send slot must wait for the receive
		// completions of this instant (Prio).
		return s.kick(p, false)
	case evRecvDone:
		m := s.arena[e.arg]
		s.freeSlot(e.arg)
		s.maxEnd = max(s.maxEnd, t)
		s.curCause = len(s.disKind) == 0 || hasKind(s.disKind, m.msg.Kind())
		if err := s.step(p, core.Receive(m.from, m.msg)); err != nil {
			return err
		}
		return s.kick(p, true)
	case evSendFree:
		return s.kick(p, true)
	}
	return nil
}

func hasKind(ks []string, k string) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

// step runs one machine step at s.now and carries out its effects.
func (s *Sim) step(p core.Rank, ev core.Event) error {
	effs, err := s.nodes[p].Step(ev, s.effs[:0])
	s.effs = effs
	if err != nil {
		return fmt.Errorf("logp: t=%d %v: %v: %w", s.now, p, ev, err)
	}
	for i := range effs {
		e := &effs[i]
		switch e.Kind {
		case core.EffSend:
			if !e.To.Valid(len(s.nodes)) {
				return fmt.Errorf("logp: t=%d %v sends to invalid %v", s.now, p, e.To)
			}
			s.enqueue(&s.sq[p], s.alloc(p, e.To, e.Msg))
		case core.EffDeliver:
			if s.res.DeliveredAt[p] >= 0 {
				s.res.Duplicates++
			} else {
				s.res.DeliveredAt[p] = s.now
				s.dissem[p] = s.curCause
			}
		case core.EffSetTimer:
			if s.opt.SendSlotTimer != 0 && e.Timer == s.opt.SendSlotTimer {
				s.armed[p] = true
			} else {
				s.timers = append(s.timers, e.Timer)
				s.schedule(s.now+int64(e.Delay), evTimer, p, int32(len(s.timers)-1))
			}
		}
		e.Msg = nil
	}
	return nil
}

// kick starts whatever p's free ports can start at s.now. A send slot is
// fired only at top level (not from within another step's effects); from
// inside a step it is deferred to the send-free class of this instant.
func (s *Sim) kick(p core.Rank, top bool) error {
	t := s.now
	sp, rp := int(p), s.recvPort(p)
	recvFirst := s.opt.Prio == PrioRecv
	for {
		started := false
		if recvFirst && s.busy[rp] <= t && s.rq[p].head >= 0 {
			s.startRecv(p, t)
			started = true
		}
		if s.busy[sp] <= t && s.sq[p].head >= 0 {
			s.startSend(p, t)
			started = true
		}
		if !recvFirst && s.busy[rp] <= t && s.rq[p].head >= 0 {
			s.startRecv(p, t)
			started = true
		}
		if !started {
			break
		}
	}
	if s.armed[p] && s.busy[sp] <= t && s.sq[p].head < 0 {
		if !top {
			s.schedule(t, evSendFree, p, 0)
			return nil
		}
		s.armed[p] = false
		s.curCause = false
		if err := s.step(p, core.Timer(s.opt.SendSlotTimer)); err != nil {
			return err
		}
		return s.kick(p, true)
	}
	return nil
}

func (s *Sim) startSend(p core.Rank, t int64) {
	i := s.dequeue(&s.sq[p])
	m := &s.arena[i]
	o := s.opt.O
	s.busy[int(p)] = t + o
	s.res.Messages++
	s.res.SentPerProc[p]++
	if len(s.corrKind) > 0 && hasKind(s.corrKind, m.msg.Kind()) {
		s.res.CorrectionMessages++
		if s.res.CorrectionStart < 0 {
			s.res.CorrectionStart = t
		}
	}
	s.maxEnd = max(s.maxEnd, t+o)
	if s.opt.Log {
		s.res.Log = append(s.res.Log, Entry{Op: OpSend, Proc: p, Peer: m.to, Start: t, End: t + o, Kind: m.msg.Kind()})
	}
	s.schedule(t+o+s.opt.L, evArrive, m.to, i)
	s.schedule(t+o, evSendFree, p, 0)
}

func (s *Sim) startRecv(p core.Rank, t int64) {
	i := s.dequeue(&s.rq[p])
	o := s.opt.O
	s.busy[s.recvPort(p)] = t + o
	if s.opt.Log {
		m := &s.arena[i]
		s.res.Log = append(s.res.Log, Entry{Op: OpRecv, Proc: p, Peer: m.from, Start: t, End: t + o, Kind: m.msg.Kind()})
	}
	s.schedule(t+o, evRecvDone, p, i)
}

func (s *Sim) finish(res *Result) {
	P := res.P
	last := s.start
	for r := range P {
		if s.failed[r] {
			continue
		}
		if res.DeliveredAt[r] < 0 {
			res.Uncolored++
		} else {
			last = max(last, res.DeliveredAt[r])
		}
	}
	res.ColoringLatency = last - s.start
	res.QuiescenceLatency = s.maxEnd - s.start
	if res.CorrectionStart >= 0 {
		res.CorrectionLatency = s.maxEnd - res.CorrectionStart
	}
	// Longest cyclic run of failed or not-dissemination-colored ranks.
	bad := func(r int) bool { return s.failed[r] || res.DeliveredAt[r] < 0 || !s.dissem[r] }
	run, best, first := 0, 0, -1
	for r := range P {
		if bad(r) {
			run++
			best = max(best, run)
		} else {
			if first < 0 {
				first = run
			}
			run = 0
		}
	}
	if first < 0 {
		best = P
	} else {
		best = max(best, run+first)
	}
	res.GapMax = best
}

// RandomFaults picks round(rate·P) distinct failed processes uniformly
// among ranks 1 … P-1 (the root is alive, §2.1), from the generator seeded
// with (seed, run). The same arguments give the same set.
func RandomFaults(P int, rate float64, seed, run uint64) core.RankSet {
	var set core.RankSet
	if P < 2 || rate <= 0 {
		return set
	}
	n := int(math.Round(rate * float64(P)))
	n = min(n, P-1)
	rng := rand.New(rand.NewPCG(seed, run))
	if n > (P-1)/2 {
		// Dense: partial Fisher–Yates over 1 … P-1.
		perm := make([]core.Rank, P-1)
		for i := range perm {
			perm[i] = core.Rank(i + 1)
		}
		for i := 0; i < n; i++ {
			j := i + rng.IntN(len(perm)-i)
			perm[i], perm[j] = perm[j], perm[i]
			set.Add(perm[i])
		}
		return set
	}
	for k := 0; k < n; {
		r := core.Rank(1 + rng.IntN(P-1))
		if !set.Has(r) {
			set.Add(r)
			k++
		}
	}
	return set
}
