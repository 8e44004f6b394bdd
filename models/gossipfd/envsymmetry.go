package gossipfd

import (
	"bytes"
	"cmp"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// SymmetricEnv is the bounded-delay model (NewEnvModel) with rotation
// symmetry: renaming every host s ↦ s + c mod n, with the crash set, maps
// runs of RR, BRR and DBRR to runs (fd.Config.RotationInvariant; every host
// has the same schedule, one Start call, and the same timers), and its
// three properties are invariant under it. It changes no world: it only
// adds EncodeCanonical, the visited-set key of checker Options.Symmetry,
// and registry.Erase treats it as the env model it wraps (charts, ITF).
type SymmetricEnv struct{ *env.Model }

var (
	_ checker.CanonicalEncoder[*env.World] = SymmetricEnv{}
	_ checker.Model[*env.World]            = SymmetricEnv{}
)

// Env is the wrapped model (registry.EnvBacked).
func (m SymmetricEnv) Env() *env.Model { return m.Model }

// EncodeCanonical appends the least, bytewise, of RotatedKey(w, c) over
// every rotation c in 0 … n−1: equal for two worlds exactly when one is a
// rotation of the other (RotatedKey(w, 0) determines w's env encoding,
// TestEnvKeyDeterminesWorld).
func (m SymmetricEnv) EncodeCanonical(b []byte, w *env.World) []byte {
	s := snapshot(w)
	best := s.appendKey(nil, 0)
	var buf []byte
	for c := 1; c < s.n; c++ {
		buf = s.appendKey(buf[:0], c)
		if bytes.Compare(buf, best) < 0 {
			best, buf = buf, best
		}
	}
	return append(b, best...)
}

// RotatedKey appends a key of the world w renamed by s ↦ s + c mod n, read
// through env.World's accessors: the number of hosts and of Clock actions,
// the crash set, then per host s' = 0 … n−1 (the image of host s' − c):
// its machine rotated (fd.Node.Rotate), the messages in flight to it
// (sender rotated, table rotated by fd.RotateMessage, deadline offset),
// sorted, one per copy, the peers it was told are dead, the calls made,
// whether a call is awaited, its history (kind, instance, value bytes; the
// detector records none), and its armed timers (id rotated by
// fd.RotateTimer, deadline offset) sorted by id. Every part of env.Model's
// own encoding is there, so RotatedKey(w, 0) determines it. Machines must
// be *fd.Node.
func RotatedKey(b []byte, w *env.World, c int) []byte {
	s := snapshot(w)
	return s.appendKey(b, c)
}

// envSnap is what RotatedKey reads of a world, read once for all
// rotations.
type envSnap struct {
	n        int
	clocks   int
	crashed  core.RankSet
	nodes    []*fd.Node
	inbox    [][]env.Envelope // by receiver, one per copy
	due      [][]int32        // deadline offsets, parallel to inbox
	detected []core.RankSet
	made     []int
	awaiting []bool
	hist     [][]env.Record
	timers   [][]uint64
	tdue     [][]int32
}

func snapshot(w *env.World) *envSnap {
	n := w.N()
	s := &envSnap{n: n, clocks: w.Clocks(), crashed: w.CrashedSet(), nodes: make([]*fd.Node, n),
		inbox: make([][]env.Envelope, n), due: make([][]int32, n), detected: make([]core.RankSet, n),
		made: make([]int, n), awaiting: make([]bool, n), hist: make([][]env.Record, n),
		timers: make([][]uint64, n), tdue: make([][]int32, n)}
	dl := w.Deadlines()
	for i, e := range w.InFlight() {
		var d int32
		if i < len(dl) {
			d = dl[i]
		}
		s.inbox[e.To] = append(s.inbox[e.To], e)
		s.due[e.To] = append(s.due[e.To], d)
	}
	for p := range core.Rank(n) {
		s.nodes[p] = w.Node(p).(*fd.Node)
		for q := range core.Rank(n) {
			if w.Detected(p, q) {
				s.detected[p].Add(q)
			}
		}
		s.made[p] = len(w.CallsMade(p))
		s.awaiting[p] = w.Awaiting(p)
		s.hist[p] = w.History(p)
		s.timers[p], s.tdue[p] = w.Timers(p), w.TimerDeadlines(p)
	}
	return s
}

// envMsg is one copy of a message in flight, as appendKey sorts them:
// its rotated encoding is enc[lo:hi] of a shared buffer.
type envMsg struct {
	from   core.Rank
	lo, hi int
	d      int32
}

// appendKey appends RotatedKey of the snapshot's world for rotation c.
func (s *envSnap) appendKey(b []byte, c int) []byte {
	n := s.n
	c = ((c % n) + n) % n
	rot := func(x core.Rank) core.Rank { return core.Rank((int(x) + c) % n) }
	b = core.AppendUint(b, uint64(n))
	b = core.AppendUint(b, uint64(s.clocks))
	var set core.RankSet
	s.crashed.Each(func(x core.Rank) { set.Add(rot(x)) })
	b = set.AppendBinary(b)
	type timer struct {
		id  uint64
		due int32
	}
	var enc []byte
	var msgs []envMsg
	var ts []timer
	for t := range n {
		p := core.Rank((t - c + n) % n)
		start := len(b)
		b = s.nodes[p].AppendRotated(b, c)
		b = prefixLen(b, start)
		enc, msgs = enc[:0], msgs[:0]
		for i, e := range s.inbox[p] {
			lo := len(enc)
			enc = fd.AppendRotatedMessage(enc, e.Msg, c, n)
			msgs = append(msgs, envMsg{from: rot(e.From), lo: lo, hi: len(enc), d: s.due[p][i]})
		}
		slices.SortFunc(msgs, func(x, y envMsg) int {
			return cmp.Or(cmp.Compare(x.from, y.from), bytes.Compare(enc[x.lo:x.hi], enc[y.lo:y.hi]), cmp.Compare(x.d, y.d))
		})
		b = core.AppendUint(b, uint64(len(msgs)))
		for _, e := range msgs {
			b = core.AppendUint(b, uint64(e.from))
			b = core.AppendBytes(b, enc[e.lo:e.hi])
			b = core.AppendUint(b, uint64(e.d))
		}
		set = core.RankSet{}
		s.detected[p].Each(func(x core.Rank) { set.Add(rot(x)) })
		b = set.AppendBinary(b)
		b = core.AppendUint(b, uint64(s.made[p]))
		b = core.AppendBool(b, s.awaiting[p])
		b = core.AppendUint(b, uint64(len(s.hist[p])))
		for _, r := range s.hist[p] {
			b = core.AppendUint(b, uint64(r.Kind))
			b = core.AppendUint(b, r.Instance)
			b = core.AppendBool(b, r.Value != nil)
			if r.Value != nil {
				b = core.AppendBytes(b, r.Value.AppendBinary(nil))
			}
		}
		ts = ts[:0]
		for i, id := range s.timers[p] {
			x := timer{id: fd.RotateTimer(id, c, n)}
			if i < len(s.tdue[p]) {
				x.due = s.tdue[p][i]
			}
			ts = append(ts, x)
		}
		slices.SortFunc(ts, func(x, y timer) int { return cmp.Compare(x.id, y.id) })
		b = core.AppendUint(b, uint64(len(ts)))
		for _, x := range ts {
			b = core.AppendUint(b, x.id)
			b = core.AppendUint(b, uint64(x.due))
		}
	}
	return b
}

// prefixLen turns b[start:] into its length-prefixed form
// (core.AppendBytes(b[:start], b[start:])).
func prefixLen(b []byte, start int) []byte {
	body := slices.Clone(b[start:])
	return core.AppendBytes(b[:start], body)
}
