package ringfd

import (
	"bytes"
	"cmp"
	"errors"
	"github.com/ftkernel/ftkernel/registry"
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
	cfg  *fd.Config
	fifo bool // env.FIFO: the order of a pair's messages is part of the world
}

var _ checker.CanonicalEncoder[*env.World] = (*SymModel)(nil)
var _ registry.EnvBacked = (*SymModel)(nil)

// Env returns the wrapped environment model, so that ftcheck's charts,
// replay and registry.EnvModel see the worlds (registry.EnvBacked).
func (m *SymModel) Env() *env.Model { return m.Model }

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
	return &SymModel{Model: m, cfg: &cfg, fifo: p.Network == env.FIFO}, nil
}

// EncodeCanonical appends the key of w's rotation class: the least,
// bytewise, of RotationKey(w, k) over k = 0 … N−1. Two worlds get the same
// key exactly when one is a rotation of the other.
func (m *SymModel) EncodeCanonical(b []byte, w *env.World) []byte {
	_, key := m.Canonical(w)
	return append(b, key...)
}

// Canonical returns the rotation k whose key (RotationKey) is least, and
// that key. It builds the N keys rank by rank, dropping a rotation as soon
// as its part for a rank exceeds another's: each rank's part is
// self-delimiting, so comparing part by part is comparing the whole keys
// bytewise, and usually one rotation is left after the first daemon.
func (m *SymModel) Canonical(w *env.World) (int, []byte) {
	snap := snapshotOf(m.cfg, w, m.fifo)
	n := m.cfg.N
	keys := make([][]byte, n)
	alive := make([]int, n)
	for k := range alive {
		alive[k] = k
		keys[k] = core.AppendUint(nil, uint64(snap.spent))
	}
	var part, best []byte
	var sc scratch
	for r := range snap.ranks {
		next := alive[:0]
		best = best[:0]
		for _, k := range alive {
			start := len(keys[k])
			keys[k] = snap.appendRank(keys[k], m.cfg, r, k, &sc)
			part = keys[k][start:]
			switch c := bytes.Compare(part, best); {
			case len(next) == 0 || c < 0:
				next = append(next[:0], k)
				best = append(best[:0], part...)
			case c == 0:
				next = append(next, k)
			}
		}
		alive = next
	}
	return alive[0], keys[alive[0]]
}

// RotationKey is a complete encoding of the world w of m would be after the
// rotation by k, built from w's accessors (not env's encoding): the budget
// spent, then for every rank r' in order, with r = r' rotated by −k: r's
// crash flag, its node state rotated, the crashed processes reported to it
// by the local detector (rotated), its calls made, its awaiting flag and
// history length, its armed timers with their deadline offsets, and its
// inbox as the list of (sender rotated, message rotated, deadline offset),
// one entry per copy: sorted (a multiset) on the unordered network; on the
// FIFO network ordered by rotated sender and, within a sender, in queue
// order (env.World.InFlight's order), which is part of the world: sorting
// it too would give two worlds that differ only in the order of a pair's
// queue (HB then FAULT, FAULT then HB) one key, and the symmetric search
// would then skip reachable classes (found by models/all
// TestForgetSymmetrySoundness, envtest.CompareForgetSymmetric's search
// without symmetry; TestSymmetryKeyComplete).
func (m *SymModel) RotationKey(w *env.World, k int) []byte {
	return snapshotOf(m.cfg, w, m.fifo).appendKey(nil, m.cfg, k)
}

// snapshot is what RotationKey reads of a world, gathered once for the N
// rotations.
type snapshot struct {
	spent int
	fifo  bool // keep each sender's queue order (env.FIFO)
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

func snapshotOf(c *fd.Config, w *env.World, fifo bool) *snapshot {
	s := &snapshot{spent: w.Spent(), fifo: fifo, ranks: make([]rankSnap, c.Ranks())}
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
	var sc scratch
	for r := range s.ranks {
		b = s.appendRank(b, c, r, k, &sc)
	}
	return b
}

// scratch is appendRank's reusable space.
type scratch struct {
	node    []byte
	msg     []byte
	arena   []byte
	entries [][]byte
	from    []core.Rank // the rotated sender of each entry (FIFO)
}

// appendRank appends the part of RotationKey for rotation k that rank
// position r holds: the record of rank r rotated by −k, renamed by k.
func (s *snapshot) appendRank(b []byte, c *fd.Config, r, k int, sc *scratch) []byte {
	rs := &s.ranks[c.RotateRank(core.Rank(r), -k)]
	b = core.AppendBool(b, rs.crashed)
	switch n := rs.node.(type) {
	case *fd.Daemon:
		sc.node = n.AppendRotated(sc.node[:0], k)
	case *fd.Process:
		sc.node = n.AppendRotated(sc.node[:0], k)
	}
	b = core.AppendBytes(b, sc.node)
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
	b = core.AppendUint(b, uint64(len(rs.inbox)))
	if len(rs.inbox) == 0 {
		return b
	}
	sc.arena, sc.entries, sc.from = sc.arena[:0], sc.entries[:0], sc.from[:0]
	ends := make([]int, 0, len(rs.inbox))
	for _, e := range rs.inbox {
		sc.from = append(sc.from, c.RotateRank(e.from, k))
		sc.arena = core.AppendUint(sc.arena, uint64(c.RotateRank(e.from, k)))
		sc.msg = c.AppendRotatedMessage(sc.msg[:0], e.msg, k)
		sc.arena = core.AppendBytes(sc.arena, sc.msg)
		sc.arena = core.AppendUint(sc.arena, uint64(e.d))
		ends = append(ends, len(sc.arena))
	}
	prev := 0
	for _, end := range ends {
		sc.entries = append(sc.entries, sc.arena[prev:end])
		prev = end
	}
	if s.fifo {
		// Stable by rotated sender: InFlight lists a receiver's messages
		// by sender, each sender's in queue order, which this keeps.
		idx := make([]int, len(sc.entries))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(sc.from[x], sc.from[y]) })
		for _, i := range idx {
			b = append(b, sc.entries[i]...)
		}
		return b
	}
	slices.SortFunc(sc.entries, bytes.Compare)
	for _, x := range sc.entries {
		b = append(b, x...)
	}
	return b
}
