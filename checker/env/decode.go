package env

import (
	"bytes"
	"fmt"
	"slices"
	"sync"

	"github.com/ftkernel/ftkernel/core"
)

// Codec holds the protocol's decoders, the inverses of the AppendBinary
// encodings of its node states, messages and values, so that the Model can
// decode a World from its canonical encoding (Model.Decode): BFS then keeps
// its frontier as encodings (checker.Codec). Each decoder returns an error
// wrapping core.ErrMalformed for bytes its type did not write, never a
// panic. The zero Codec decodes nothing (Model.Decodes is false).
type Codec struct {
	// Node decodes the state of process p of n written by its
	// AppendBinary.
	Node func(b []byte, p core.Rank, n int) (core.Machine, error)
	// Message decodes a message written by its AppendBinary.
	Message func(b []byte) (core.Message, error)
	// Value decodes a decided, returned or delivered value written by its
	// AppendBinary (History records). Nil: the protocol's records carry no
	// value.
	Value func(b []byte) (core.Value, error)
}

// Decodes reports whether Config.Codec has the node and message decoders
// that Decode needs.
func (m *Model) Decodes() bool { return m.cfg.Codec.Node != nil && m.cfg.Codec.Message != nil }

// schedIndex maps the concatenated encoded call schedules of every process
// to the first schedule alternative that has them.
type schedIndex struct {
	once sync.Once
	alt  map[string]int
}

func (m *Model) schedAlt(key []byte) (int, bool) {
	m.sidx.once.Do(func() {
		m.sidx.alt = make(map[string]int, len(m.schedEnc))
		for k := len(m.schedEnc) - 1; k >= 0; k-- {
			var b []byte
			for _, e := range m.schedEnc[k] {
				b = append(b, e...)
			}
			m.sidx.alt[string(b)] = k
		}
	})
	k, ok := m.sidx.alt[string(key)]
	return k, ok
}

// Decode reads a world written by Encode and returns it, an inverse of
// Encode: Encode(Decode(Encode(w))) = Encode(w), and the decoded world
// enables, applies and checks exactly as w does. What Encode leaves out is
// not restored: the decoded world is at Depth 0, with no last step
// (LastActor NoRank, no LastEffects); the schedule alternative is the first
// whose calls are the encoded ones. Bytes that Encode could not have
// written (for this model) give an error wrapping core.ErrMalformed; a
// model without a Codec gives an error; it never panics. The per-process
// fingerprints the world keeps (Fingerprint) are hashes of the bytes read,
// not of a re-encoding: they are right for canonical bytes (Encode's output,
// which is all BFS decodes); a non-canonical encoding that the decoders
// accept would give a world whose Fingerprint follows its bytes. O(size of
// the encoding) plus the protocol's decoders.
func (m *Model) Decode(b []byte) (w *World, err error) {
	if !m.Decodes() {
		return nil, fmt.Errorf("env: %s has no Codec (Config.Codec)", m.name)
	}
	defer func() {
		if r := recover(); r != nil { // a protocol decoder's bug, not ours
			w, err = nil, fmt.Errorf("%w: env: decoder panicked: %v", core.ErrMalformed, r)
		}
	}()
	N := m.cfg.N
	d := core.NewDecoder(b)
	if n := d.Uint(); d.Err() == nil && n != uint64(N) {
		d.Fail("N = %d, want %d", n, N)
	}
	w = &World{m: m, actor: core.NoRank}
	w.crashed = core.DecodeRankSet(d, N)
	w.ncrash = w.crashed.Len()
	w.crashed.Each(func(r core.Rank) {
		if m.fail.Has(r) {
			w.nfail++
		}
	})
	w.spent = w.ncrash - w.nfail
	if m.pl.host == nil && w.spent > m.cfg.Crashes {
		d.Fail("%d crashes beyond the budget %d", w.ncrash-w.nfail, m.cfg.Crashes)
	}
	clock := d.Uint()
	if clock > uint64(len(m.cfg.Wakeups)) {
		d.Fail("clock %d beyond the %d wakeups", clock, len(m.cfg.Wakeups))
	}
	w.clock = int(clock)
	if m.pl.host != nil {
		spent := d.Uint()
		if d.Err() == nil && (spent > uint64(m.cfg.Crashes) || spent > uint64(w.ncrash) || spent == 0 && w.ncrash > 0) {
			d.Fail("%d crashes spent with %d ranks crashed and a budget of %d", spent, w.ncrash, m.cfg.Crashes)
		}
		w.spent = int(spent)
		for h, rs := range m.pl.hosted {
			for _, r := range rs {
				if w.crashed.Has(core.Rank(h)) && !w.crashed.Has(r) {
					d.Fail("host %v crashed and %v, which it hosts, did not", core.Rank(h), r)
				}
			}
		}
	}
	procs := make([]*proc, N)
	slab := make([]proc, N) // one allocation for the N procs
	// scheds[i] aliases b: process i's encoded call schedule.
	scheds := make([][]byte, N)
	start := make([]int, N+1) // process i's bytes are b[start[i]:start[i+1]]
	var sched []byte
	for i := range procs {
		start[i] = len(b) - d.Remaining()
		p := &slab[i]
		s, err := m.decodeProc(p, d, b, core.Rank(i), w.crashed.Has(core.Rank(i)))
		if err != nil {
			return nil, err
		}
		procs[i] = p
		scheds[i] = s
		sched = append(sched, s...)
	}
	start[N] = len(b) - d.Remaining()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	alt, ok := m.schedAlt(sched)
	if !ok {
		return nil, fmt.Errorf("%w: env: call schedules match no alternative", core.ErrMalformed)
	}
	w.alt = alt
	edit := editSeq.Add(1) // owned by no Apply: shared, never edited in place
	// The procs keep their bytes (proc.enc) in one copy of b's process
	// part: b itself belongs to the caller.
	base := start[0]
	own := slices.Clone(b[base:start[N]])
	for i := range start {
		start[i] -= base
	}
	for i, p := range procs {
		n := len(m.sched[alt][i])
		if int(p.made) > n {
			return nil, fmt.Errorf("%w: env: %v made %d calls of %d", core.ErrMalformed, core.Rank(i), p.made, n)
		}
		p.agg = m.weigh(p, i, w.crashed, n)
		p.edit = edit
		// The bytes read for p are what appendProc writes for it when b is
		// canonical (Encode's output, the Codec contract), so their hash is
		// procFP without encoding p again; a schedule that is not the
		// alternative's own bytes falls back to encoding.
		if bytes.Equal(scheds[i], m.schedEnc[alt][i]) {
			p.enc = own[start[i]:start[i+1]:start[i+1]]
			p.fp = core.Fingerprint(p.enc)
		} else {
			p.fp = m.procFP(p, alt, i)
		}
	}
	w.root = build(procs, m.height)
	return w, nil
}

// decodeProc reads what appendProc wrote for process r into p (a zero
// proc); it returns the bytes of its encoded call schedule (aliasing b).
func (m *Model) decodeProc(p *proc, d *core.Decoder, b []byte, r core.Rank, crashed bool) ([]byte, error) {
	N, cd := m.cfg.N, m.cfg.Codec
	p.live = !crashed
	nb := d.Bytes(d.Remaining())
	if d.Err() != nil {
		return nil, d.Err()
	}
	node, err := cd.Node(nb, r, N)
	if err != nil {
		return nil, fmt.Errorf("env: %v's state: %w", r, err)
	}
	if node == nil {
		return nil, fmt.Errorf("%w: env: Codec.Node returned nil for %v", core.ErrMalformed, r)
	}
	p.node = node
	k := d.Len(d.Remaining())
	if crashed && k > 0 {
		d.Fail("messages in flight to crashed %v", r)
	}
	p.inbox = make([]entry, 0, k)
	for j := 0; j < k && d.Err() == nil; j++ {
		e := entry{from: d.Rank(N)}
		c := d.Uint()
		if d.Err() == nil && (c == 0 || c > 1<<31-1) {
			d.Fail("%d copies of a message", c)
		}
		e.n = int32(c)
		e.key = d.String(d.Remaining())
		if m.cfg.Timing == BoundedDelay {
			e.d = decodeDeadline(d, m.cfg.Delta)
		}
		if d.Err() != nil {
			break
		}
		if j > 0 && !m.inboxOrdered(p.inbox[j-1], e) {
			d.Fail("inbox of %v not in canonical order", r)
			break
		}
		msg, err := cd.Message([]byte(e.key))
		if err != nil {
			return nil, fmt.Errorf("env: a message to %v: %w", r, err)
		}
		e.msg = msg
		p.inbox = append(p.inbox, e)
	}
	if k == 0 {
		p.inbox = nil
	}
	p.detected = core.DecodeRankSet(d, N)
	p.ndet = int32(p.detected.Len())
	start := len(b) - d.Remaining()
	nc := d.Len(d.Remaining())
	for j := 0; j < nc && d.Err() == nil; j++ {
		d.Bytes(d.Remaining())
	}
	sched := b[start : len(b)-d.Remaining()]
	made := d.Uint()
	if d.Err() == nil && made > uint64(nc) {
		d.Fail("%v made %d calls of %d", r, made, nc)
	}
	p.made = int32(made)
	p.awaiting = d.Bool()
	nh := d.Len(d.Remaining())
	for j := 0; j < nh && d.Err() == nil; j++ {
		rec := Record{Kind: core.EffectKind(d.Byte())}
		rec.Instance = d.Uint()
		if d.Bool() {
			vb := d.Bytes(d.Remaining())
			if d.Err() != nil {
				break
			}
			if cd.Value == nil {
				return nil, fmt.Errorf("%w: env: a value in %v's history and no Codec.Value", core.ErrMalformed, r)
			}
			v, err := cd.Value(vb)
			if err != nil {
				return nil, fmt.Errorf("env: a value in %v's history: %w", r, err)
			}
			rec.Value = v
		}
		p.hist = append(p.hist, rec)
	}
	p.timers, p.due = decodeTimers(d, m.cfg.Timing == BoundedDelay)
	if m.cfg.Timing == LockStepRounds {
		p.next = decodeIDs(d)
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	return sched, nil
}

// inboxOrdered reports whether entry b may follow entry a in a canonical
// inbox: by sender, then (Unordered) by encoding, distinct; under FIFO a
// sender's queue keeps its order, with equal neighbours merged.
func (m *Model) inboxOrdered(a, b entry) bool {
	if a.from != b.from {
		return a.from < b.from
	}
	if m.cfg.Network == FIFO {
		// insertMsg merges a new copy only into an equal last entry (same
		// bytes and, under BoundedDelay, same deadline).
		return a.key != b.key || a.d != b.d
	}
	if a.key != b.key {
		return a.key < b.key
	}
	// Equal bytes: distinct entries only under BoundedDelay, by ascending
	// deadline offset (insertMsg's order).
	return m.cfg.Timing == BoundedDelay && a.d < b.d
}

// decodeIDs reads a count and that many timer ids, strictly ascending.
func decodeIDs(d *core.Decoder) []uint64 {
	n := d.Len(d.Remaining())
	if n == 0 {
		return nil
	}
	ids := make([]uint64, 0, n)
	for j := 0; j < n && d.Err() == nil; j++ {
		id := d.Uint()
		if j > 0 && id <= ids[j-1] {
			d.Fail("timer ids not strictly ascending")
		}
		ids = append(ids, id)
	}
	return ids
}
