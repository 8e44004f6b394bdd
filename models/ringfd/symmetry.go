package ringfd

import (
	"bytes"
	"errors"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// SymModel is the check model with the rotation symmetry of the identity
// ring (fd.Config.RotationInvariant): daemon ids d ↦ d + k mod N, each
// process moving with its daemon, the crashed set and every message
// renamed alike. It is a checker.CanonicalEncoder: with --symmetry the
// visited set holds one key per rotation class, while the frontier and the
// counterexamples keep the real worlds (and checker's Eventually search
// lifts lassos found on classes back to real cycles).
type SymModel struct {
	*env.Model
	cfg *fd.Config
}

var _ checker.CanonicalEncoder[*env.World] = (*SymModel)(nil)

// errNotRotation refuses --symmetry for a ring that is not the identity.
var errNotRotation = errors.New("ringfd: --symmetry needs the identity ring: rotating daemon ids is not a symmetry of a permuted ring")

// NewSymModel is NewCheckModel with the rotation symmetry; a ring that is
// not the identity is refused.
func NewSymModel(p CheckParams) (*SymModel, error) {
	m, err := NewCheckModel(p)
	if err != nil {
		return nil, err
	}
	cfg, _ := fd.Normalize(p.Config())
	if !cfg.RotationInvariant() {
		return nil, errNotRotation
	}
	return &SymModel{Model: m, cfg: &cfg}, nil
}

// EncodeCanonical appends the key of w's rotation class: the least,
// bytewise, of RotationKey(w, k) over k = 0 … N−1. Two worlds get the same
// key exactly when one is a rotation of the other.
func (m *SymModel) EncodeCanonical(b []byte, w *env.World) []byte {
	_, key := m.Canonical(w)
	return append(b, key...)
}

// Canonical returns the rotation k whose key is least, and that key.
func (m *SymModel) Canonical(w *env.World) (int, []byte) {
	snap := snapshotOf(m.cfg, w)
	var best []byte
	bestK := 0
	var buf []byte
	for k := 0; k < m.cfg.N; k++ {
		buf = snap.appendKey(buf[:0], m.cfg, k)
		if best == nil || bytes.Compare(buf, best) < 0 {
			best, bestK = append(best[:0], buf...), k
		}
	}
	return bestK, best
}

// RotationKey is a complete encoding of the world w would be after the
// rotation by k, built from w's accessors (not env's encoding): the budget
// spent, then for every rank r' in order, with r = r' rotated by −k: r's
// crash flag, its node state rotated, the crashed processes reported to it
// by the local detector (rotated), its calls made, its awaiting flag and
// history length, its armed timers with their deadline offsets, and its
// inbox as the sorted list of (sender rotated, message rotated, deadline
// offset), one entry per copy.
func RotationKey(c *fd.Config, w *env.World, k int) []byte {
	return snapshotOf(c, w).appendKey(nil, c, k)
}

// snapshot is what RotationKey reads of a world, gathered once for the N
// rotations.
type snapshot struct {
	spent int
	ranks []rankSnap
}

type rankSnap struct {
	crashed  bool
	node     core.Machine
	detected core.RankSet
	made     int
	awaiting bool
	hist     int
	timers   []uint64
	due      []int32
	inbox    []inMsg
}

type inMsg struct {
	from core.Rank
	msg  core.Message
	d    int32
}

func snapshotOf(c *fd.Config, w *env.World) *snapshot {
	s := &snapshot{spent: w.Spent(), ranks: make([]rankSnap, c.Ranks())}
	for r := range s.ranks {
		rank := core.Rank(r)
		rs := &s.ranks[r]
		rs.crashed = w.Crashed(rank)
		rs.node = w.Node(rank)
		if c.IsDaemon(rank) {
			for j := 0; j < c.Procs; j++ {
				if q := c.ProcRank(rank, j); w.Detected(rank, q) {
					rs.detected.Add(q)
				}
			}
		}
		rs.made = len(w.CallsMade(rank))
		rs.awaiting = w.Awaiting(rank)
		rs.hist = len(w.History(rank))
		rs.timers = w.Timers(rank)
		rs.due = w.TimerDeadlines(rank)
	}
	dl := w.Deadlines()
	for i, e := range w.InFlight() {
		s.ranks[e.To].inbox = append(s.ranks[e.To].inbox, inMsg{from: e.From, msg: e.Msg, d: dl[i]})
	}
	return s
}

// appendKey appends RotationKey for rotation k.
func (s *snapshot) appendKey(b []byte, c *fd.Config, k int) []byte {
	b = core.AppendUint(b, uint64(s.spent))
	var entries [][]byte
	for r := range s.ranks {
		rs := &s.ranks[c.RotateRank(core.Rank(r), -k)]
		b = core.AppendBool(b, rs.crashed)
		var node []byte
		switch n := rs.node.(type) {
		case *fd.Daemon:
			node = n.Rotated(k).AppendBinary(nil)
		case *fd.Process:
			node = n.Rotated(k).AppendBinary(nil)
		}
		b = core.AppendBytes(b, node)
		b = c.RotateSet(rs.detected, k).AppendBinary(b)
		b = core.AppendUint(b, uint64(rs.made))
		b = core.AppendBool(b, rs.awaiting)
		b = core.AppendUint(b, uint64(rs.hist))
		b = core.AppendUint(b, uint64(len(rs.timers)))
		for i, id := range rs.timers {
			b = core.AppendUint(b, id)
			if rs.due != nil {
				b = core.AppendUint(b, uint64(rs.due[i]))
			}
		}
		entries = entries[:0]
		for _, e := range rs.inbox {
			x := core.AppendUint(nil, uint64(c.RotateRank(e.from, k)))
			x = core.AppendBytes(x, c.RotateMessage(e.msg, k).AppendBinary(nil))
			entries = append(entries, core.AppendUint(x, uint64(e.d)))
		}
		slices.SortFunc(entries, bytes.Compare)
		b = core.AppendUint(b, uint64(len(entries)))
		for _, x := range entries {
			b = append(b, x...)
		}
	}
	return b
}
