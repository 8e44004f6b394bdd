package env

import (
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// entry is one distinct message in flight to a process: n copies of msg
// from from, whose canonical encoding is key.
type entry struct {
	from core.Rank
	n    int32
	key  string
	msg  core.Message
	// d is BoundedDelay's deadline offset: the tick by which the copies
	// must be delivered, minus now (see delay.go); 0 under other timings.
	d int32
}

// agg counts what a process (or a subtree of processes) contributes to the
// enabled actions: w deliveries, losses, calls and timer firings; live processes; det
// detections already done by live processes. The pending detections of a
// subtree with c crashed processes in the world are live*c - det.
// agg sums, over the processes of a subtree: w enabled non-crash actions
// (without detections), live processes, det detections made, pend timers
// armed for the next round (LockStepRounds); under BoundedDelay, due steps
// that must happen before the next Tick (detections aside) and later
// messages and timers in all (weighDelay).
type agg struct{ w, live, det, pend, due, later int64 }

func (a *agg) add(b agg) {
	a.w += b.w
	a.live += b.live
	a.det += b.det
	a.pend += b.pend
	a.due += b.due
	a.later += b.later
}

func (a agg) sub(b agg) agg {
	return agg{a.w - b.w, a.live - b.live, a.det - b.det, a.pend - b.pend, a.due - b.due, a.later - b.later}
}

// work is the number of enabled non-crash actions, given c crashed
// processes in the world.
func (a agg) work(c int64) int64 { return a.w + a.live*c - a.det }

// proc is everything the world keeps about one process. A proc reachable
// from a World is never modified; Apply modifies only copies it owns (edit
// equal to its own edit id), and slices are always replaced, never written.
type proc struct {
	edit     uint64
	node     core.Machine
	ns       *nodeState // node's interned state (nodes.go): ns.node == node
	live     bool
	awaiting bool  // Blocking: a call is made and has not returned
	made     int32 // calls made so far
	inbox    []entry
	detected core.RankSet // crashed peers reported to this process
	ndet     int32        // detected.Len()
	hist     []Record
	timers   []uint64 // armed timers, ascending, distinct (replaced, never written)
	next     []uint64 // LockStepRounds: timers armed for the next round, likewise
	due      []int32  // BoundedDelay: deadline offset of each armed timer, parallel to timers
	agg      agg      // this process's share of its tree's sums
	// fp is procFP of this proc, set by Apply when it changes the proc (a
	// proc belongs to one rank of one schedule alternative); the initial
	// procs (edit 0) have none: Fingerprint computes theirs.
	fp uint64
	// enc, when not nil, holds the bytes appendProc writes for this proc
	// (set with fp by Apply and Decode, never written afterwards), so that
	// Encode copies them instead of encoding the proc again.
	enc []byte
}

// Record is one observable output of a process: an EffDecide, EffReturn or
// EffDeliver effect, in the order the process emitted them.
type Record struct {
	Kind     core.EffectKind
	Instance uint64
	Value    core.Value
}

// weigh computes the agg of p, the record of rank i, given the crashed set
// and its schedule length.
func (m *Model) weigh(p *proc, i int, crashed core.RankSet, nsched int) agg {
	if !p.live {
		return agg{}
	}
	if m.timed() {
		return m.weighDelay(p, i, crashed, nsched)
	}
	var w int64
	prev := core.NoRank
	for _, e := range p.inbox {
		if m.cfg.Network == FIFO {
			if e.from == prev {
				continue
			}
			prev = e.from
		}
		w++
		if m.cfg.Loss == LossOnCrash && crashed.Has(e.from) {
			w++
		}
	}
	if m.callable(p, nsched) {
		w++
	}
	w += int64(len(p.timers))
	if m.cfg.Detector == DetectorLocal {
		return agg{w: w + m.localPending(p, i, crashed), live: 1, pend: int64(len(p.next))}
	}
	if m.cfg.Faults == CrashRecovery {
		det, back := told(p, crashed) // recovery.go
		return agg{w: w + back, live: 1, det: det, pend: int64(len(p.next))}
	}
	return agg{w: w, live: 1, det: int64(p.ndet), pend: int64(len(p.next))}
}

// armTimer returns timers with id added (a re-armed id is replaced: the set
// is unchanged).
func armTimer(timers []uint64, id uint64) []uint64 {
	i, found := slices.BinarySearch(timers, id)
	if found {
		return timers
	}
	return slices.Insert(slices.Clip(timers), i, id)
}

// disarmTimer returns timers without id, and whether it was armed.
func disarmTimer(timers []uint64, id uint64) ([]uint64, bool) {
	i, found := slices.BinarySearch(timers, id)
	if !found {
		return timers, false
	}
	return slices.Delete(slices.Clone(timers), i, i+1), true
}

// senderRange returns the entries [lo, hi) of in sent by q.
func senderRange(in []entry, q core.Rank) (lo, hi int) {
	lo, _ = slices.BinarySearchFunc(in, q, func(e entry, q core.Rank) int { return int(e.from) - int(q) })
	hi = lo
	for hi < len(in) && in[hi].from == q {
		hi++
	}
	return lo, hi
}

// findEntry returns the position in in of the message a Deliver or Lose
// action (q, i) names, under network net.
func findEntry(in []entry, net Network, q core.Rank, i int32) (int, bool) {
	lo, hi := senderRange(in, q)
	if i < 0 || int(i) >= hi-lo || (net == FIFO && i != 0) {
		return 0, false
	}
	return lo + int(i), true
}

// insertMsg returns a new inbox with one more copy of msg (encoded as key)
// from from, with deadline offset d (BoundedDelay; 0 otherwise): under
// Unordered in (from, key, d) order, under FIFO at the end of from's queue
// (merged with its last entry when equal, which keeps the representation
// canonical).
func insertMsg(in []entry, net Network, from core.Rank, key string, msg core.Message, d int32) []entry {
	var i int
	var same bool
	if net == FIFO {
		_, i = senderRange(in, from)
		same = i > 0 && in[i-1].from == from && in[i-1].key == key && in[i-1].d == d
		if same {
			i--
		}
	} else {
		i, same = slices.BinarySearchFunc(in, from, func(e entry, from core.Rank) int {
			if e.from != from {
				return int(e.from) - int(from)
			}
			if c := strings.Compare(e.key, key); c != 0 {
				return c
			}
			return int(e.d) - int(d)
		})
	}
	if same {
		out := slices.Clone(in)
		out[i].n++
		return out
	}
	out := make([]entry, len(in)+1)
	copy(out, in[:i])
	out[i] = entry{from: from, n: 1, key: key, msg: msg, d: d}
	copy(out[i+1:], in[i:])
	return out
}

// removeMsg returns a new inbox with one copy of in[i] less.
func removeMsg(in []entry, i int) []entry {
	if in[i].n > 1 {
		out := slices.Clone(in)
		out[i].n--
		return out
	}
	out := make([]entry, 0, len(in)-1)
	out = append(out, in[:i]...)
	return append(out, in[i+1:]...)
}
