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
// accept would give a world whose Fingerprint follows its bytes. The
// Model remembers what it decoded (proccache.go, nodes.go): a process,
// node state or message whose bytes it met before (for the same rank) is
// shared, not decoded again. O(size of the encoding) plus the protocol's
// decoders for what is new.
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
	hdr := World{m: m, actor: core.NoRank}
	hdr.crashed = core.DecodeRankSet(d, N)
	hdr.ncrash = hdr.crashed.Len()
	hdr.crashed.Each(func(r core.Rank) {
		if m.fail.Has(r) {
			hdr.nfail++
		}
	})
	hdr.spent = hdr.ncrash - hdr.nfail
	if m.pl.host == nil && hdr.spent > m.cfg.Crashes {
		d.Fail("%d crashes beyond the budget %d", hdr.ncrash-hdr.nfail, m.cfg.Crashes)
	}
	clock := d.Uint()
	if clock > uint64(len(m.cfg.Wakeups)) {
		d.Fail("clock %d beyond the %d wakeups", clock, len(m.cfg.Wakeups))
	}
	hdr.clock = int(clock)
	if m.pl.host != nil {
		spent := d.Uint()
		if d.Err() == nil && (spent > uint64(m.cfg.Crashes) || spent > uint64(hdr.ncrash) || spent == 0 && hdr.ncrash > 0) {
			d.Fail("%d crashes spent with %d ranks crashed and a budget of %d", spent, hdr.ncrash, m.cfg.Crashes)
		}
		hdr.spent = int(spent)
		for h, rs := range m.pl.hosted {
			for _, r := range rs {
				if hdr.crashed.Has(core.Rank(h)) && !hdr.crashed.Has(r) {
					d.Fail("host %v crashed and %v, which it hosts, did not", core.Rank(h), r)
				}
			}
		}
	}
	if m.faulty() {
		m.decodeFaults(d, &hdr) // faults.go
	}
	// Frame the processes first (cheap: counts and lengths), to learn
	// the schedule alternative; then take each process from the cache or
	// decode it.
	var startBuf [twidth + 1]int
	var schedBuf [twidth][]byte
	start, scheds := startBuf[:0], schedBuf[:0]
	if N > twidth {
		start, scheds = make([]int, 0, N+1), make([][]byte, 0, N)
	}
	if err := d.Err(); err != nil {
		return nil, err
	}
	kp := scratch.Get().(*[]byte)
	defer scratch.Put(kp)
	key := (*kp)[:0] // the concatenated encoded call schedules
	f := framer{b: b, i: len(b) - d.Remaining()}
	for range N {
		start = append(start, f.i)
		sc := m.skipProc(&f)
		scheds = append(scheds, sc)
		key = append(key, sc...)
		if f.bad {
			break
		}
	}
	*kp = key
	start = append(start, f.i)
	if f.bad || f.i != len(b) {
		return nil, fmt.Errorf("%w: env: the processes' bytes are not framed as Encode frames them (at byte %d of %d)", core.ErrMalformed, f.i, len(b))
	}
	alt, ok := m.schedAlt(key)
	if !ok {
		return nil, fmt.Errorf("%w: env: call schedules match no alternative", core.ErrMalformed)
	}
	hdr.alt = alt
	edit := editSeq.Add(1) // owned by no Apply: shared, never edited in place
	var procs []*proc
	var leaf *tnode
	if m.height == 0 {
		w, leaf, procs = allocLeaf(N)
	} else {
		w, procs = &World{}, make([]*proc, N)
	}
	*w = hdr
	for i := range procs {
		r := core.Rank(i)
		pb := b[start[i]:start[i+1]]
		fp := core.Fingerprint(pb)
		crashed := w.crashed.Has(r)
		n := len(m.sched[alt][i])
		// The bytes read for p are what appendProc writes for it when b is
		// canonical (Encode's output, the Codec contract), so their hash is
		// procFP without encoding p again, and a proc decoded from the
		// same bytes for the same rank is the same proc (only its weight
		// can depend on the world: on the crashed set under LossOnCrash).
		// A schedule that is not the alternative's own bytes falls back to
		// encoding, uncached.
		canon := bytes.Equal(scheds[i], m.schedEnc[alt][i])
		if canon {
			if p := m.cachedProcOf(fp, r, pb); p != nil && p.live == !crashed &&
				(!m.worldWeighed() || m.weigh(p, i, w.crashed, n) == p.agg) {
				procs[i] = p
				continue
			}
		}
		c := new(decodedProc)
		p := &c.p
		pd := core.NewDecoder(pb)
		if _, err := m.decodeProc(p, pd, pb, r, crashed); err != nil {
			return nil, err
		}
		if err := pd.Finish(); err != nil {
			return nil, err
		}
		if int(p.made) > n {
			return nil, fmt.Errorf("%w: env: %v made %d calls of %d", core.ErrMalformed, r, p.made, n)
		}
		p.agg = m.weigh(p, i, w.crashed, n)
		p.edit = edit
		if canon {
			if len(pb) <= len(c.enc) {
				p.enc = c.enc[:len(pb):len(pb)]
				copy(p.enc, pb) // b belongs to the caller
			} else {
				p.enc = slices.Clip(slices.Clone(pb))
			}
			p.fp = fp
			c.entry = cachedProc{p: p, rank: r}
			m.cacheEntry(&c.entry)
		} else {
			p.fp = m.procFP(p, alt, i)
		}
		procs[i] = p
	}
	if leaf != nil {
		*leaf = tnode{procs: procs}
		for _, p := range procs {
			leaf.sum.add(p.agg)
		}
		w.root = leaf
	} else {
		w.root = build(procs, m.height)
	}
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
	// A node state met before (the same rank and bytes) is not decoded
	// again; a new one is interned by its own encoding (nodes.go).
	if ns := m.lookupState(r, nb); ns != nil {
		p.ns, p.node = ns, ns.node
	} else {
		node, err := cd.Node(nb, r, N)
		if err != nil {
			return nil, fmt.Errorf("env: %v's state: %w", r, err)
		}
		if node == nil {
			return nil, fmt.Errorf("%w: env: Codec.Node returned nil for %v", core.ErrMalformed, r)
		}
		p.ns = m.intern(r, node)
		p.node = p.ns.node
	}
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
		kb := d.Bytes(d.Remaining())
		if m.cfg.Timing == BoundedDelay {
			e.d = decodeDeadline(d, m.cfg.Delta)
		}
		if d.Err() != nil {
			break
		}
		// A message met before (the same bytes) is not decoded again.
		e.key, e.msg = m.lookupMsg(kb)
		if e.msg == nil {
			e.key = string(kb) // b belongs to the caller
			msg, err := cd.Message([]byte(e.key))
			if err != nil {
				return nil, fmt.Errorf("env: a message to %v: %w", r, err)
			}
			e.msg = msg
			m.internMsg(e.key, msg)
		}
		if j > 0 && !m.inboxOrdered(p.inbox[j-1], e) {
			d.Fail("inbox of %v not in canonical order", r)
			break
		}
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
	if nh > 0 {
		p.hist = make([]Record, 0, nh)
	}
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
