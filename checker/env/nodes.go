package env

import (
	"slices"
	"sync"
	"sync/atomic"

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
// Both tables are bounded (a shard that reaches its share is emptied):
// a forgotten state or step is only recomputed.

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
// with one event: the next state and the effects, in order (shared by
// every Apply that replays it: never modified), with, for each EffSend
// carrying a message, that message's encoding (the inbox key).
type stepMemo struct {
	to   *nodeState
	effs []core.Effect
	keys []string
}

const (
	memoShards = 64
	// maxNodeStates and maxSteps bound the two tables (all shards).
	maxNodeStates = 1 << 17
	maxSteps      = 1 << 18
)

// nodeTable is the Model's interned node states and memoized steps. Safe
// for concurrent use.
type nodeTable struct {
	ids    atomic.Uint64
	states [memoShards]memoShard[*nodeState]
	steps  [memoShards]memoShard[*stepMemo]
}

type memoShard[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (s *memoShard[V]) get(key []byte) (V, bool) {
	s.mu.Lock()
	v, ok := s.m[string(key)]
	s.mu.Unlock()
	return v, ok
}

// put stores v under key unless the key is there already, and returns
// the value stored.
func (s *memoShard[V]) put(key []byte, v V, limit int) V {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.m[string(key)]; ok {
		return old
	}
	if s.m == nil || len(s.m) >= limit {
		s.m = make(map[string]V)
	}
	s.m[string(key)] = v
	return v
}

// stateKey appends the key of rank r's node encoded as enc.
func stateKey(b []byte, r core.Rank, enc []byte) []byte {
	b = core.AppendUint(b, uint64(r))
	return append(b, enc...)
}

func stateShard(r core.Rank, enc []byte) int {
	return int(core.Fingerprint(enc)^uint64(r)*0x9e3779b97f4a7c15) & (memoShards - 1)
}

// lookupState returns rank r's interned state encoded as enc, if any.
func (m *Model) lookupState(r core.Rank, enc []byte) *nodeState {
	bp := scratch.Get().(*[]byte)
	*bp = stateKey((*bp)[:0], r, enc)
	ns, _ := m.nodes.states[stateShard(r, enc)].get(*bp)
	scratch.Put(bp)
	return ns
}

// intern returns the interned state of rank r's node: the one already
// kept for its encoding, or a new one holding node (which the caller
// gives up: it is shared from now on).
func (m *Model) intern(r core.Rank, node core.Machine) *nodeState {
	bp := scratch.Get().(*[]byte)
	defer scratch.Put(bp)
	enc := node.AppendBinary((*bp)[:0])
	*bp = enc
	kp := scratch.Get().(*[]byte)
	defer scratch.Put(kp)
	*kp = stateKey((*kp)[:0], r, enc)
	sh := &m.nodes.states[stateShard(r, enc)]
	if ns, ok := sh.get(*kp); ok {
		return ns
	}
	ns := &nodeState{node: node, rank: r, enc: slices.Clone(enc), id: m.nodes.ids.Add(1)}
	return sh.put(*kp, ns, maxNodeStates/memoShards)
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
	case core.EvSuspect:
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
	kp := scratch.Get().(*[]byte)
	defer scratch.Put(kp)
	*kp = stepKey((*kp)[:0], ns, ev, evKey)
	sh := &m.nodes.steps[ns.id&(memoShards-1)]
	if sm, ok := sh.get(*kp); ok {
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
	sm := &stepMemo{to: m.intern(ns.rank, node)}
	if len(effs) > 0 {
		sm.effs = slices.Clip(slices.Clone(effs))
		sm.keys = make([]string, len(effs))
		for i, e := range effs {
			if e.Kind == core.EffSend && e.Msg != nil {
				sm.keys[i] = string(e.Msg.AppendBinary(nil))
			}
		}
	}
	return sh.put(*kp, sm, maxSteps/memoShards), nil
}
