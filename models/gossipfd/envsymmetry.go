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
	best := RotatedKey(nil, w, 0)
	var buf []byte
	for c := 1; c < w.N(); c++ {
		buf = RotatedKey(buf[:0], w, c)
		if bytes.Compare(buf, best) < 0 {
			best, buf = buf, best
		}
	}
	return append(b, best...)
}

// envMsg is one copy of a message in flight, as RotatedKey sorts them.
type envMsg struct {
	from core.Rank
	enc  []byte
	d    int32
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
	n := w.N()
	c = ((c % n) + n) % n
	rot := func(x core.Rank) core.Rank { return core.Rank((int(x) + c) % n) }
	src := func(x int) core.Rank { return core.Rank((x - c + n) % n) }
	b = core.AppendUint(b, uint64(n))
	b = core.AppendUint(b, uint64(w.Clocks()))
	var crashed core.RankSet
	w.CrashedSet().Each(func(x core.Rank) { crashed.Add(rot(x)) })
	b = crashed.AppendBinary(b)
	inbox := make([][]envMsg, n)
	deadlines := w.Deadlines()
	for i, e := range w.InFlight() {
		m := envMsg{from: rot(e.From), enc: fd.RotateMessage(e.Msg, c, n).AppendBinary(nil)}
		if i < len(deadlines) {
			m.d = deadlines[i]
		}
		inbox[rot(e.To)] = append(inbox[rot(e.To)], m)
	}
	type timer struct {
		id  uint64
		due int32
	}
	for s := range n {
		p := src(s)
		b = core.AppendBytes(b, w.Node(p).(*fd.Node).Rotate(c).AppendBinary(nil))
		msgs := inbox[s]
		slices.SortFunc(msgs, func(x, y envMsg) int {
			return cmp.Or(cmp.Compare(x.from, y.from), bytes.Compare(x.enc, y.enc), cmp.Compare(x.d, y.d))
		})
		b = core.AppendUint(b, uint64(len(msgs)))
		for _, e := range msgs {
			b = core.AppendUint(b, uint64(e.from))
			b = core.AppendBytes(b, e.enc)
			b = core.AppendUint(b, uint64(e.d))
		}
		var det core.RankSet
		for q := range core.Rank(n) {
			if w.Detected(p, q) {
				det.Add(rot(q))
			}
		}
		b = det.AppendBinary(b)
		b = core.AppendUint(b, uint64(len(w.CallsMade(p))))
		b = core.AppendBool(b, w.Awaiting(p))
		hist := w.History(p)
		b = core.AppendUint(b, uint64(len(hist)))
		for _, r := range hist {
			b = core.AppendUint(b, uint64(r.Kind))
			b = core.AppendUint(b, r.Instance)
			b = core.AppendBool(b, r.Value != nil)
			if r.Value != nil {
				b = core.AppendBytes(b, r.Value.AppendBinary(nil))
			}
		}
		ids, due := w.Timers(p), w.TimerDeadlines(p)
		ts := make([]timer, len(ids))
		for i, id := range ids {
			ts[i].id = fd.RotateTimer(id, c, n)
			if i < len(due) {
				ts[i].due = due[i]
			}
		}
		slices.SortFunc(ts, func(x, y timer) int { return cmp.Compare(x.id, y.id) })
		b = core.AppendUint(b, uint64(len(ts)))
		for _, t := range ts {
			b = core.AppendUint(b, t.id)
			b = core.AppendUint(b, uint64(t.due))
		}
	}
	return b
}
