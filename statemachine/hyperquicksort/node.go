package hyperquicksort

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
)

// Node is one process of Hyperquicksort over a network, a core.Machine:
// the Process of Algorithm 1 in a sequence of sorting rounds, each begun
// by a call (Next) and ended by a barrier, with the shared store of
// §4.2.2 kept as a copy at every process.
//
// The non-recommended set of a sorting round is the set of processes the
// node was told are dead (EvSuspect) when the round's call arrives
// (§4.2.2: "todos os processos possuem a lista de processos
// não-recomendados" at the start of the round). The runtime makes that
// set the same at every process: it calls the next round only once every
// live process has reached the barrier and stepped the suspicion of every
// process killed (cmd/ftcheck, ftcheck run hyperquicksort). A process
// that dies inside a round stops that round (its partner waits for its
// list): the thesis has no rule for a round redone, so kills are made at
// barriers.
//
// The shared store (§4.2.2: "cada processo salva a sua lista ordenada …
// em disco compartilhado") is replicated: at the end of its part of round
// k a process sends the lists it saved to every process it does not know
// dead (STORE), and keeps its own copy. Its barrier of round k is reached
// when its part is over and it holds the STORE of round k of every other
// process that played in it; it then returns (EffReturn, instance k) its
// copy of the store, the lists by virtual rank. So at a barrier every live
// process holds the same store, and a process killed there loses no saved
// list: a substitute reads it from its own copy.
type Node struct {
	proc   *Process
	n      int
	rounds int            // log2 n
	cur    int            // the sorting round started last (−1: none)
	views  []core.RankSet // views[k]: the non-recommended set of round k
	dead   core.RankSet   // suspected so far
	store  [][]int32      // by virtual rank
	stored core.RankSet   // STOREs of round cur received
	done   bool           // this process's part of round cur is over
	ret    int            // barriers returned
	early  []core.Message // messages of a round not started yet, in arrival order
}

// Next is the call that begins sorting round Round (0 first).
type Next struct{ Round int }

// AppendBinary appends the round.
func (c Next) AppendBinary(b []byte) []byte { return core.AppendUint(b, uint64(c.Round)) }

// String is e.g. "next(round=1)".
func (c Next) String() string { return fmt.Sprintf("next(round=%d)", c.Round) }

// Lists are the lists by virtual rank a node returns at a barrier: its
// copy of the shared store.
type Lists [][]int32

// AppendBinary appends the lists.
func (l Lists) AppendBinary(b []byte) []byte {
	b = core.AppendUint(b, uint64(len(l)))
	for _, x := range l {
		b = appendValues(b, x)
	}
	return b
}

// String is e.g. "[1, 2] [3] []".
func (l Lists) String() string { return FormatLists(l) }

// Sort wraps a Msg of the sort (a pivot or a list) as a core.Message.
type Sort struct{ Msg }

// Kind is "PIVOT" or "LIST".
func (m Sort) Kind() string {
	if m.IsPivot {
		return "PIVOT"
	}
	return "LIST"
}

// AppendBinary appends the message, its kind first.
func (m Sort) AppendBinary(b []byte) []byte { return m.Msg.AppendBinary(append(b, kindSort)) }

// Store is a process's save to the shared store at the end of its part of
// sorting round Round: the lists of the virtual ranks it played.
type Store struct {
	From   core.Rank
	Round  int
	Writes []Write
}

// Kind is "STORE".
func (Store) Kind() string { return "STORE" }

// AppendBinary appends the message, its kind first.
func (m Store) AppendBinary(b []byte) []byte {
	b = append(b, kindStore)
	b = core.AppendInt(b, int64(m.From))
	b = core.AppendUint(b, uint64(m.Round))
	b = core.AppendUint(b, uint64(len(m.Writes)))
	for _, w := range m.Writes {
		b = core.AppendInt(b, int64(w.V))
		b = appendValues(b, w.Values)
	}
	return b
}

// String is e.g. "STORE(round=0, v4=[1, 2]) from p5".
func (m Store) String() string {
	parts := make([]string, len(m.Writes))
	for i, w := range m.Writes {
		parts[i] = fmt.Sprintf("v%d=%s", w.V, FormatValues(w.Values))
	}
	return fmt.Sprintf("STORE(round=%d, %s) from p%d", m.Round, strings.Join(parts, " "), m.From)
}

const (
	kindSort  = 1
	kindStore = 2
)

// NewNode returns process rank of n, holding its share input; inputs are
// every process's share, the shared store before the first sorting round
// (so that a substitute in it can read the share of the process it plays).
func NewNode(rank core.Rank, cfg *Config, inputs [][]int32) (*Node, error) {
	if len(inputs) != cfg.N || !rank.Valid(cfg.N) {
		return nil, fmt.Errorf("hyperquicksort: %d shares for %d processes, rank %d", len(inputs), cfg.N, rank)
	}
	p, err := NewProcess(rank, cfg, inputs[rank])
	if err != nil {
		return nil, err
	}
	dim, _ := Dim(cfg.N)
	nd := &Node{proc: p, n: cfg.N, rounds: dim, cur: -1, store: make([][]int32, cfg.N)}
	for v, in := range inputs {
		nd.store[v] = slices.Sorted(slices.Values(in))
	}
	return nd, nil
}

// Step applies one event.
func (nd *Node) Step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	c := nd.Clone().(*Node)
	res, err := c.step(ev, out)
	if err != nil {
		return out, err
	}
	*nd = *c
	return res, nil
}

func (nd *Node) step(ev core.Event, out []core.Effect) ([]core.Effect, error) {
	switch ev.Kind {
	case core.EvSuspect:
		nd.dead.Add(ev.Peer)
		return out, nil
	case core.EvCall:
		c, ok := ev.Input.(Next)
		if !ok || c.Round != nd.cur+1 || c.Round >= nd.rounds || nd.ret != nd.cur+1 {
			return out, fmt.Errorf("hyperquicksort: p%d (round %d, %d barriers) cannot take %v", nd.proc.rank, nd.cur, nd.ret, ev.Input)
		}
		return nd.begin(c.Round, out)
	case core.EvReceive:
		return nd.receive(ev.Msg, out)
	}
	return out, fmt.Errorf("hyperquicksort: p%d: unexpected event %v", nd.proc.rank, ev)
}

// begin starts sorting round k with the dead processes as the
// non-recommended set, then takes the messages of round k that came early.
func (nd *Node) begin(k int, out []core.Effect) ([]core.Effect, error) {
	r := Round{N: nd.n, S: nd.rounds - k, Index: k, NonRec: nd.dead.Clone()}
	eff, err := nd.proc.Start(r, func(v core.Rank) []int32 { return nd.store[v] })
	if err != nil {
		return out, err
	}
	nd.cur, nd.done, nd.stored = k, false, core.RankSet{}
	nd.views = append(nd.views, r.NonRec)
	out = nd.effects(eff, out)
	early := nd.early
	nd.early = nil
	for _, m := range early {
		if out, err = nd.receive(m, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func msgRound(m core.Message) int {
	switch m := m.(type) {
	case Sort:
		return m.Round
	case Store:
		return m.Round
	}
	return -1
}

func (nd *Node) receive(m core.Message, out []core.Effect) ([]core.Effect, error) {
	k := msgRound(m)
	switch {
	case k < 0:
		return out, fmt.Errorf("hyperquicksort: p%d: unexpected message %v", nd.proc.rank, m)
	case k > nd.cur:
		nd.early = append(nd.early, m)
		return out, nil
	case k < nd.cur:
		return out, fmt.Errorf("hyperquicksort: p%d in round %d: %v of round %d", nd.proc.rank, nd.cur, m, k)
	}
	switch m := m.(type) {
	case Sort:
		eff, err := nd.proc.Deliver(m.Msg)
		if err != nil {
			return out, err
		}
		return nd.effects(eff, out), nil
	case Store:
		if nd.stored.Has(m.From) || nd.views[k].Has(m.From) {
			return out, fmt.Errorf("hyperquicksort: p%d: unexpected %v", nd.proc.rank, m)
		}
		nd.stored.Add(m.From)
		for _, w := range m.Writes {
			nd.store[w.V] = slices.Clone(w.Values)
		}
	}
	return nd.barrier(out), nil
}

// effects turns a step of the Process into sends, and at the end of the
// node's part of the round saves its lists (STORE to every process not
// known dead, and its own copy).
func (nd *Node) effects(eff Effects, out []core.Effect) []core.Effect {
	for _, m := range eff.Out {
		out = append(out, core.Send(m.To, Sort{m}))
	}
	if !eff.Finished {
		return out
	}
	nd.done = true
	st := Store{From: nd.proc.rank, Round: nd.cur}
	for _, w := range eff.Writes {
		nd.store[w.V] = slices.Clone(w.Values)
		st.Writes = append(st.Writes, Write{V: w.V, Values: slices.Clone(w.Values)})
	}
	for q := range core.Rank(nd.n) {
		if q != nd.proc.rank && !nd.dead.Has(q) {
			out = append(out, core.Send(q, st))
		}
	}
	return nd.barrier(out)
}

// barrier returns the store once the node's part of round cur is over and
// every other player of the round saved its lists.
func (nd *Node) barrier(out []core.Effect) []core.Effect {
	if !nd.done || nd.ret > nd.cur {
		return out
	}
	for q := range core.Rank(nd.n) {
		if q != nd.proc.rank && !nd.views[nd.cur].Has(q) && !nd.stored.Has(q) {
			return out
		}
	}
	nd.ret++
	return append(out, core.Return(uint64(nd.cur), nd.Store()))
}

// Store is the node's copy of the shared store, by virtual rank (a copy).
func (nd *Node) Store() Lists {
	out := make(Lists, len(nd.store))
	for v, l := range nd.store {
		out[v] = slices.Clone(l)
	}
	return out
}

// Barriers is the number of barriers the node passed (returned).
func (nd *Node) Barriers() int { return nd.ret }

// Rounds is the number of sorting rounds, log2 n.
func (nd *Node) Rounds() int { return nd.rounds }

// Views are the non-recommended sets of the rounds the node started.
func (nd *Node) Views() []core.RankSet {
	out := make([]core.RankSet, len(nd.views))
	for i, v := range nd.views {
		out[i] = v.Clone()
	}
	return out
}

// Clone returns a deep copy.
func (nd *Node) Clone() core.Machine {
	c := *nd
	c.proc = nd.proc.Clone()
	c.views = nd.Views()
	c.dead, c.stored = nd.dead.Clone(), nd.stored.Clone()
	c.store = nd.Store()
	c.early = slices.Clone(nd.early) // messages are never changed in place
	return &c
}

// AppendBinary appends the canonical encoding of the node's state.
func (nd *Node) AppendBinary(b []byte) []byte {
	b = nd.proc.AppendBinary(b)
	b = core.AppendInt(b, int64(nd.cur))
	b = core.AppendUint(b, uint64(nd.ret))
	b = core.AppendBool(b, nd.done)
	b = nd.dead.AppendBinary(b)
	b = nd.stored.AppendBinary(b)
	b = core.AppendUint(b, uint64(len(nd.views)))
	for _, v := range nd.views {
		b = v.AppendBinary(b)
	}
	b = Lists(nd.store).AppendBinary(b)
	b = core.AppendUint(b, uint64(len(nd.early)))
	for _, m := range nd.early {
		b = m.AppendBinary(b)
	}
	return b
}

// String summarises the node, e.g. "p0 round 1 barriers 1 dead {3} p0 v0=[…]".
func (nd *Node) String() string {
	return fmt.Sprintf("p%d round %d barriers %d dead %v %s", nd.proc.rank, nd.cur, nd.ret, nd.dead, nd.proc)
}

// DecodeLists decodes the Lists of a run over n processes (a return's
// value).
func DecodeLists(b []byte, n int) (Lists, error) {
	d := core.NewDecoder(b)
	k := d.Len(n)
	out := make(Lists, k)
	for v := range out {
		for range d.Len(1 << 20) {
			out[v] = append(out[v], int32(d.Int()))
		}
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return out, nil
}

// DecodeMessage decodes a Sort or Store message of a run over n
// processes.
func DecodeMessage(b []byte, n int) (core.Message, error) {
	d := core.NewDecoder(b)
	rank := func() core.Rank {
		x := d.Int()
		if x < 0 || x >= int64(n) {
			d.Fail("rank %d out of 0 … %d", x, n-1)
			return 0
		}
		return core.Rank(x)
	}
	values := func() []int32 {
		k := d.Len(1 << 20)
		var out []int32
		for range k {
			out = append(out, int32(d.Int()))
		}
		return out
	}
	var m core.Message
	switch d.Byte() {
	case kindSort:
		var s Msg
		s.From, s.To, s.Round = rank(), rank(), int(d.Len(64))
		if s.IsPivot = d.Bool(); s.IsPivot {
			s.Root, s.HasPivot, s.Pivot = rank(), d.Bool(), int32(d.Int())
		} else {
			s.FromV, s.ToV, s.Values = rank(), rank(), values()
		}
		m = Sort{s}
	case kindStore:
		st := Store{From: rank(), Round: d.Len(64)}
		for range d.Len(n) {
			st.Writes = append(st.Writes, Write{V: rank(), Values: values()})
		}
		m = st
	default:
		d.Fail("not a hyperquicksort message")
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return m, nil
}
