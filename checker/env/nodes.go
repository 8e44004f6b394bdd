package env

import (
	"bytes"
	"slices"

	"github.com/ftkernel/ftkernel/core"
)

// Interned node states and memoized steps. A search meets each process's
// node in few states (ERA N=4 with 3 crashes: about 600 per rank, against
// millions of worlds), and a node is a pure, deterministic machine whose
// behaviour is a function of its rank and its canonical encoding (the
// visited set already relies on this: two worlds whose encodings are
// equal are explored once). So the Model keeps one nodeState per (rank,
// encoding), and per (nodeState, event) the outcome of Step: the next
// nodeState and the effects. Apply then steps a node only the first time
// it meets that event in that state, and never re-encodes a node; Decode
// decodes a node only the first time it meets its bytes.
//
// Both tables are bounded memos (memo.go): a forgotten state or step is
// only recomputed.

// nodeState is one interned state of one process's node: the node
// (shared by every proc in that state, never stepped itself), its
// encoding (AppendBinary) and a unique id that keys its steps.
type nodeState struct {
	node core.Machine
	rank core.Rank
	enc  []byte
	id   uint64
}

// stepMemo is the outcome of one successful Step of a nodeState's node
// with one event (key: stepKey): the next state and the effects, in order
// (shared by every Apply that replays it: never modified), with, for each
// EffSend carrying a message, that message's encoding (the inbox key).
type stepMemo struct {
	key  string
	to   *nodeState
	effs []core.Effect
	keys []string
}

// The sizes of the tables: 2^bits entries at most.
const (
	stateBits = 14
	stepBits  = 16
)

// stateHash is the hash of rank r's node state encoded as enc.
func stateHash(r core.Rank, enc []byte) uint64 { return fpMix(core.Fingerprint(enc), uint64(r)+1) }

// lookupState returns rank r's interned state encoded as enc, if any.
func (m *Model) lookupState(r core.Rank, enc []byte) *nodeState {
	return m.states.get(stateHash(r, enc), func(ns *nodeState) bool {
		return ns.rank == r && bytes.Equal(ns.enc, enc)
	})
}

// intern returns the interned state of rank r's node: the one already
// kept for its encoding, or a new one holding node (which the caller
// gives up: it is shared from now on).
func (m *Model) intern(r core.Rank, node core.Machine) *nodeState {
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	enc := node.AppendBinary((*bp)[:0])
	*bp = enc
	if ns := m.lookupState(r, enc); ns != nil {
		return ns
	}
	ns := &nodeState{node: node, rank: r, enc: slices.Clone(enc), id: m.stateIDs.Add(1)}
	m.states.put(stateHash(r, enc), ns)
	return ns
}

// stepKey appends the key of ns's step with ev, whose payload (the
// message's or the call input's encoding; empty for the other events) is
// evKey.
func stepKey(b []byte, ns *nodeState, ev core.Event, evKey string) []byte {
	b = core.AppendUint(b, ns.id)
	b = append(b, byte(ev.Kind))
	switch ev.Kind {
	case core.EvReceive:
		b = core.AppendUint(b, uint64(ev.From))
	case core.EvSuspect, core.EvRecovered:
		b = core.AppendUint(b, uint64(ev.Peer))
	case core.EvTimer:
		b = core.AppendUint(b, ev.Timer)
	}
	return append(b, evKey...)
}

// step is ns's node stepped with ev (whose payload encodes as evKey: see
// stepKey): the memoized outcome, or a Step of a clone, memoized when it
// succeeds. A failed or panicking Step gives its error, never memoized.
func (m *Model) step(ns *nodeState, ev core.Event, evKey string) (*stepMemo, error) {
	// The key is built on the stack (a longer one grows onto the heap):
	// no pooled buffer to get and put back on every Apply.
	var kb [64]byte
	key := stepKey(kb[:0], ns, ev, evKey)
	h := core.Fingerprint(key)
	if sm := m.steps.get(h, func(sm *stepMemo) bool { return sm.key == string(key) }); sm != nil {
		return sm, nil
	}
	node := ns.node.Clone()
	sp := effScratch.Get().(*[]core.Effect)
	defer func() {
		clear(*sp)
		*sp = (*sp)[:0]
		effScratch.Put(sp)
	}()
	effs, err := safeStep(node, ev, (*sp)[:0])
	*sp = effs
	if err != nil {
		return nil, err
	}
	sm := &stepMemo{key: string(key), to: m.intern(ns.rank, node)}
	if len(effs) > 0 {
		sm.effs = slices.Clip(slices.Clone(effs))
		sm.keys = make([]string, len(effs))
		for i, e := range effs {
			if e.Kind == core.EffSend && e.Msg != nil {
				sm.keys[i] = string(e.Msg.AppendBinary(nil))
			}
		}
	}
	m.steps.put(h, sm)
	return sm, nil
}
