package hyperquicksort

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// Config is the configuration every process shares.
type Config struct {
	// N is the number of processes, a power of two ≥ 2.
	N int
	// NoStore: there is no shared disk (the ULFM baseline, §4.3.2): a
	// process neither saves its lists nor reads another's; a rank whose
	// player changed starts its part with an empty list.
	NoStore bool
	// Mutant selects a broken variant (Mutants), for tests only.
	Mutant mutant.Name
}

// Validate reports a bad configuration.
func (c Config) Validate() error {
	if _, err := Dim(c.N); err != nil {
		return err
	}
	if c.Mutant != mutant.None && !slices.Contains(Mutants, c.Mutant) {
		return fmt.Errorf("hyperquicksort: unknown mutant %q", c.Mutant)
	}
	return nil
}

// Write is one list saved to the shared store: virtual rank V's list at
// the end of a sorting round (§4.2.2: "Ao fim de cada rodada de ordenação
// cada processo salva a sua lista ordenada … em disco compartilhado").
type Write struct {
	V      core.Rank
	Values []int32
}

// Effects are what one step of a process does: messages sent, virtual
// ranks whose list it read from the shared store, and lists it saved.
// Finished reports that the process ended its part of the round (it
// reached the barrier).
type Effects struct {
	Out      []Msg
	Reads    []core.Rank
	Writes   []Write
	Finished bool
	// Local counts the lists handed over inside the process (no message).
	Local int
}

// slot is what a process knows of one virtual rank.
type slot struct {
	has  bool    // list holds a copy
	at   int     // the sorting round at whose end list was saved (−1: the input)
	list []int32 // sorted
	// This round:
	play, split, got, done bool
	kept, in               []int32
}

// pivot is a cluster's pivot as a process received it.
type pivot struct {
	have, ok bool
	value    int32
}

// Process is one process running Algorithm 1 over the DGRP (§4.2.2): a
// deterministic machine stepped by Start (a sorting round begins) and
// Deliver (a message arrives). It holds in memory the lists of the
// virtual ranks it played, and reads the others from the shared store.
type Process struct {
	rank   core.Rank
	cfg    *Config
	active bool // started the current round and not finished it
	round  Round
	slots  []slot
	pivots []pivot // by cluster root
}

// NewProcess returns process rank holding its share of the input (Algorithm
// 1 line 3; quicksort, line 5, is applied here). The caller also saves the
// share to the shared store before the first sorting round, so that a
// substitute can read it.
func NewProcess(rank core.Rank, cfg *Config, input []int32) (*Process, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if !rank.Valid(cfg.N) {
		return nil, fmt.Errorf("hyperquicksort: rank %d out of 0 … %d", rank, cfg.N-1)
	}
	p := &Process{rank: rank, cfg: cfg, slots: make([]slot, cfg.N), pivots: make([]pivot, cfg.N)}
	l := slices.Clone(input)
	slices.Sort(l)
	p.slots[rank] = slot{has: true, at: -1, list: l}
	return p, nil
}

// Rank is the process's rank.
func (p *Process) Rank() core.Rank { return p.rank }

// Active reports that the process started the current round and has not
// finished it.
func (p *Process) Active() bool { return p.active }

// List is the list p holds for virtual rank v and whether it holds one.
func (p *Process) List(v core.Rank) ([]int32, bool) {
	s := p.slots[v]
	return s.list, s.has
}

// Held lists the values of every list p holds in memory (what is lost
// when p fails without a shared store), sorted.
func (p *Process) Held() []int32 {
	var out []int32
	for _, s := range p.slots {
		if s.has {
			out = append(out, s.list...)
		}
	}
	slices.Sort(out)
	return out
}

// Start begins sorting round r at p, a recommended process (r.NonRec does
// not hold p): p takes up the lists of the virtual ranks it plays (from
// memory when it played them in the previous round, else through load,
// the shared store), and the player of each cluster root broadcasts the
// root's pivot. load(v) returns v's list in the store (not modified).
//
// Ambiguity (a process back from non-recommended): its memory is stale,
// its substitute having moved its list on; it reads its own list from the
// store, as a substitute would.
func (p *Process) Start(r Round, load func(v core.Rank) []int32) (Effects, error) {
	var eff Effects
	if err := r.Validate(); err != nil {
		return eff, err
	}
	if r.N != p.cfg.N {
		return eff, fmt.Errorf("hyperquicksort: p%d: round for n = %d, process for n = %d", p.rank, r.N, p.cfg.N)
	}
	if r.NonRec.Has(p.rank) {
		return eff, fmt.Errorf("hyperquicksort: p%d is non-recommended in round %d and takes no part", p.rank, r.Index)
	}
	if p.active {
		return eff, fmt.Errorf("hyperquicksort: p%d: round %d started before round %d ended", p.rank, r.Index, p.round.Index)
	}
	p.round, p.active = r, true
	for i := range p.pivots {
		p.pivots[i] = pivot{}
	}
	for v := range p.slots {
		s := &p.slots[v]
		s.play, s.split, s.got, s.done, s.kept, s.in = false, false, false, false, nil, nil
	}
	for _, v := range r.Plays(p.rank) {
		s := &p.slots[v]
		s.play = true
		switch {
		case p.cfg.Mutant == MutantSkipStore && v != p.rank:
			if !s.has {
				s.has, s.list = true, nil
			}
		case s.has && s.at == r.Index-1:
		case p.cfg.NoStore:
			s.list = nil
			s.has = true
		default:
			s.list = slices.Clone(load(v))
			s.has = true
			eff.Reads = append(eff.Reads, v)
		}
		s.at = r.Index - 1
	}
	for _, v := range r.Plays(p.rank) {
		if r.Root(v) != v {
			continue
		}
		value, ok := Median(p.slots[v].list)
		sent := map[core.Rank]bool{p.rank: true}
		for _, w := range r.Cluster(v) {
			if q := r.Player(w); !sent[q] {
				sent[q] = true
				eff.Out = append(eff.Out, Msg{From: p.rank, To: q, Round: r.Index, IsPivot: true, Root: v, Pivot: value, HasPivot: ok})
			}
		}
		p.takePivot(v, value, ok, &eff)
	}
	return eff, nil
}

// Deliver hands p a message of its current round. A list for a virtual
// rank p does not play is an error, as is a message of another round.
func (p *Process) Deliver(m Msg) (Effects, error) {
	var eff Effects
	if !p.active || m.Round != p.round.Index || m.To != p.rank {
		return eff, fmt.Errorf("hyperquicksort: p%d (round %d, active %v) cannot take %v of round %d", p.rank, p.round.Index, p.active, m, m.Round)
	}
	if m.IsPivot {
		if !m.Root.Valid(p.cfg.N) || p.pivots[m.Root].have {
			return eff, fmt.Errorf("hyperquicksort: p%d: unexpected %v", p.rank, m)
		}
		p.takePivot(m.Root, m.Pivot, m.HasPivot, &eff)
		return eff, nil
	}
	if !m.ToV.Valid(p.cfg.N) || !p.slots[m.ToV].play || p.slots[m.ToV].got {
		return eff, fmt.Errorf("hyperquicksort: p%d: unexpected %v", p.rank, m)
	}
	p.takeList(m.ToV, m.Values, &eff)
	return eff, nil
}

// takePivot records the pivot of the cluster rooted at root and splits the
// lists of the ranks p plays there (create_lists, line 13), handing each
// half to the partner's player (lines 14–23).
func (p *Process) takePivot(root core.Rank, value int32, ok bool, eff *Effects) {
	r := p.round
	p.pivots[root] = pivot{have: true, ok: ok, value: value}
	for _, v := range r.Cluster(root) {
		s := &p.slots[v]
		if !s.play || s.split {
			continue
		}
		pv, pok := value, ok
		if p.cfg.Mutant == MutantLocalPivot {
			pv, pok = Median(s.list)
		}
		lower, higher := Split(s.list, pv, pok)
		w := r.Partner(v)
		give := higher
		s.kept = lower
		if v > w { // lines 15–18: the higher rank sends its lower list
			give, s.kept = lower, higher
		}
		s.split = true
		to := r.Player(w)
		if p.cfg.Mutant == MutantPartnerXor && v == p.rank {
			to = w
		}
		if to == p.rank {
			// A substitute playing both sides of a pair (spec §3.9, cases
			// (a) and (b)): the exchange is local, no message.
			eff.Local++
			p.takeList(w, give, eff)
		} else {
			eff.Out = append(eff.Out, Msg{From: p.rank, To: to, Round: r.Index, FromV: v, ToV: w, Values: give})
		}
		p.tryMerge(v, eff)
	}
}

// takeList records the half handed to virtual rank v.
func (p *Process) takeList(v core.Rank, values []int32, eff *Effects) {
	s := &p.slots[v]
	s.got, s.in = true, values
	p.tryMerge(v, eff)
}

// tryMerge ends v's part of the round once it both split and received
// (list ← union(…), lines 18 and 22; quicksort, line 25); when every rank p
// plays has ended, p saves their lists to the store and reaches the
// barrier.
func (p *Process) tryMerge(v core.Rank, eff *Effects) {
	s := &p.slots[v]
	if !s.split || !s.got || s.done {
		return
	}
	s.list, s.done, s.at = Union(s.kept, s.in), true, p.round.Index
	s.kept, s.in = nil, nil
	for _, t := range p.slots {
		if t.play && !t.done {
			return
		}
	}
	p.active = false
	eff.Finished = true
	if p.cfg.NoStore {
		return
	}
	for v := range p.slots {
		t := &p.slots[v]
		if !t.play || (p.cfg.Mutant == MutantSkipStore && core.Rank(v) != p.rank) {
			continue
		}
		eff.Writes = append(eff.Writes, Write{V: core.Rank(v), Values: slices.Clone(t.list)})
	}
}

// Clone returns a deep copy (the Config is shared: it is never modified).
func (p *Process) Clone() *Process {
	q := *p
	q.round.NonRec = p.round.NonRec.Clone()
	q.slots = slices.Clone(p.slots)
	for i := range q.slots {
		s := &q.slots[i]
		s.list, s.kept, s.in = slices.Clone(s.list), slices.Clone(s.kept), slices.Clone(s.in)
	}
	q.pivots = slices.Clone(p.pivots)
	return &q
}

// AppendBinary appends the canonical encoding of the process's state.
func (p *Process) AppendBinary(b []byte) []byte {
	b = core.AppendBool(b, p.active)
	b = core.AppendUint(b, uint64(p.round.Index))
	for _, s := range p.slots {
		b = core.AppendBool(b, s.has)
		if !s.has {
			continue
		}
		b = core.AppendInt(b, int64(s.at))
		b = appendValues(b, s.list)
		if !p.active {
			continue
		}
		b = core.AppendBool(b, s.play)
		b = core.AppendBool(b, s.split)
		b = core.AppendBool(b, s.got)
		b = core.AppendBool(b, s.done)
		b = appendValues(b, s.kept)
		b = appendValues(b, s.in)
	}
	if p.active {
		for _, pv := range p.pivots {
			b = core.AppendBool(b, pv.have)
		}
	}
	return b
}

// String summarises the process, e.g. "p0 active v0=[1, 2] v4=[7]".
func (p *Process) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "p%d", p.rank)
	if p.active {
		b.WriteString(" active")
	}
	for v, s := range p.slots {
		if s.has && (s.play || core.Rank(v) == p.rank) {
			fmt.Fprintf(&b, " v%d=%s", v, FormatValues(s.list))
		}
	}
	return b.String()
}
