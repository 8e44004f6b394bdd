package hyperquicksort

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	hq "github.com/ftkernel/ftkernel/statemachine/hyperquicksort"
)

// MutantULFMReadsStore gives the ULFM baseline the DGRP's shared store: a
// failed process's substitute reads the list it saved, so the run loses
// less than the failed processes held (loses-failed). A model mutant: the
// processes are unchanged.
const MutantULFMReadsStore = mutant.Name("ulfm-reads-store")

// Mutants lists the mutants the model takes: the processes' and its own.
func Mutants() []mutant.Name { return append(slices.Clone(hq.Mutants), MutantULFMReadsStore) }

// Baseline selects what a non-recommended process is.
type Baseline uint8

const (
	// DGRP: a process non-recommended in a sorting round sits it out and
	// may come back; its lists go through the shared store (§4.2.2).
	DGRP Baseline = iota
	// ULFM: a failed process is excluded for good (§4.3.2), there is no
	// shared store, and each barrier at which processes failed runs
	// revoke, agree, acknowledge and shrink (ulfm.go).
	ULFM
)

// String is "dgrp" or "ulfm".
func (b Baseline) String() string {
	if b == ULFM {
		return "ulfm"
	}
	return "dgrp"
}

// Params are the parameters of a Hyperquicksort model.
type Params struct {
	// N is the number of processes, a power of two ≥ 2.
	N int
	// MaxNonRec is the largest non-recommended set of a sorting round
	// (DGRP), or the most processes that fail in a run (ULFM); ≤ N − 1.
	MaxNonRec int
	// Values is the number of values each process starts with.
	Values int
	// Inputs is the number of input vectors explored (Input): those of
	// index InputBase … InputBase+Inputs−1.
	Inputs    int
	InputBase int
	Baseline  Baseline
	Mutant    mutant.Name
	// Schedule, when not nil, fixes the non-recommended set of each
	// sorting round (Schedule[k] for the k-th; for ULFM the failed set,
	// growing) instead of letting the environment choose.
	Schedule []core.RankSet
}

// Validate reports bad parameters in one line.
func (p Params) Validate() error {
	if _, err := hq.Dim(p.N); err != nil {
		return fmt.Errorf("--n %d: want a power of two ≥ 2", p.N)
	}
	if p.MaxNonRec < 0 || p.MaxNonRec > p.N-1 {
		return fmt.Errorf("--non-recommended-max %d: want 0 … n − 1 = %d", p.MaxNonRec, p.N-1)
	}
	if p.Values < 1 {
		return fmt.Errorf("--values %d: want ≥ 1", p.Values)
	}
	if p.Inputs < 1 || p.InputBase < 0 {
		return fmt.Errorf("--inputs %d (from %d): want ≥ 1 (from ≥ 0)", p.Inputs, p.InputBase)
	}
	if p.Mutant != mutant.None && !slices.Contains(Mutants(), p.Mutant) {
		return fmt.Errorf("--mutant %q: unknown hyperquicksort mutant (see ftcheck list)", p.Mutant)
	}
	dim, _ := hq.Dim(p.N)
	if p.Schedule != nil && len(p.Schedule) != dim {
		return fmt.Errorf("non-recommended schedule of %d rounds, want log2 n = %d", len(p.Schedule), dim)
	}
	for k, s := range p.Schedule {
		r := hq.Round{N: p.N, S: dim - k, Index: k, NonRec: s}
		if err := r.Validate(); err != nil {
			return err
		}
		if p.Baseline == ULFM && k > 0 && !p.Schedule[k-1].SubsetOf(s) {
			return fmt.Errorf("ulfm: failed set %v of round %d does not contain %v of round %d (failures are for good)", s, k, p.Schedule[k-1], k-1)
		}
	}
	return nil
}

// Input is input vector k of p: process i's share is Input(k)[i]. Input 0
// is the values N·V−1 … 0 in decreasing order (p0 holds the largest, so
// every value must cross the hypercube); input k ≥ 1 draws N·V values in
// 0 … N·V/2 from a PCG seeded with k (duplicates included).
func (p Params) Input(k int) [][]int32 {
	total := p.N * p.Values
	out := make([][]int32, p.N)
	r := rand.New(rand.NewPCG(uint64(k), 0x9e3779b97f4a7c15))
	for i := range out {
		out[i] = make([]int32, p.Values)
		for j := range out[i] {
			if k == 0 {
				out[i][j] = int32(total - 1 - (i*p.Values + j))
			} else {
				out[i][j] = int32(r.IntN(total/2 + 1))
			}
		}
	}
	return out
}

// World is a state of the model: the sorting round, its non-recommended
// set once chosen, the processes, the shared store and the messages in
// flight.
type World struct {
	input   int
	round   int  // index of the sorting round; dim when the sort is over
	chosen  bool // the round's non-recommended set is chosen
	nonRec  core.RankSet
	procs   []*hq.Process
	store   [][]int32 // the shared disk: virtual rank v's list as last saved
	net     []hq.Msg  // in flight, in canonical order
	started core.RankSet
	lost    []int32 // ULFM: values held by failed processes, sorted
	last    hq.Round
	// stats are what the run did so far; not part of the state (Encode
	// leaves them out): a search keeps the first path's.
	stats Stats
}

// Stats count what a run did.
type Stats struct {
	// Pivots and Lists are the messages sent (a local exchange sends none).
	Pivots int `json:"pivot_messages"`
	Lists  int `json:"list_messages"`
	// Moved is the number of values sent in lists.
	Moved int `json:"values_moved"`
	// Read and Saved are the values read from and saved to the shared store.
	Read  int `json:"store_values_read"`
	Saved int `json:"store_values_saved"`
	// Local is the number of lists handed over inside one process (two per
	// pair played wholly by one process).
	Local int `json:"local_handovers"`
	// Barriers is the number of barriers; Agreements and AgreementMessages
	// those of the ULFM barriers with failures (ERA, from models/era).
	Barriers int `json:"barriers"`
	// Span is the sum over sorting rounds of the largest work of a
	// process in the round: the values of the lists it plays (split and
	// merged), plus those it reads from the store or receives. A process
	// playing several ranks works for each: the parallel time of the
	// round is its slowest process's.
	Span              int `json:"span"`
	work              []int
	Agreements        float64 `json:"agreements"`
	AgreementMessages float64 `json:"agreement_messages"`
}

// Stats are what the run reaching w did.
func (w *World) Stats() Stats { return w.stats }

// Round is the index of the current sorting round (log2 N when the sort
// is over).
func (w *World) Round() int { return w.round }

// NonRec is the current round's non-recommended (or failed) set.
func (w *World) NonRec() core.RankSet { return w.nonRec }

// Model is the Hyperquicksort model, a checker.Model.
type Model struct {
	p      Params
	cfg    *hq.Config
	dim    int
	inputs [][][]int32
	props  []checker.Property[*World]
}

var _ checker.Model[*World] = (*Model)(nil)

// NewModel builds the model of p.
func NewModel(p Params) (*Model, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	dim, _ := hq.Dim(p.N)
	m := &Model{p: p, dim: dim, cfg: &hq.Config{N: p.N, NoStore: p.Baseline == ULFM, Mutant: p.Mutant}}
	if p.Mutant == MutantULFMReadsStore {
		m.cfg.NoStore, m.cfg.Mutant = false, mutant.None
	}
	for k := range p.Inputs {
		m.inputs = append(m.inputs, p.Input(p.InputBase+k))
	}
	m.props = Properties(m)
	return m, nil
}

// Params are the model's parameters.
func (m *Model) Params() Params { return m.p }

// Name is e.g. "hyperquicksort n=8 non-recommended-max=7 values=2 baseline=dgrp".
func (m *Model) Name() string {
	s := fmt.Sprintf("hyperquicksort n=%d non-recommended-max=%d values=%d inputs=%d baseline=%v", m.p.N, m.p.MaxNonRec, m.p.Values, m.p.Inputs, m.p.Baseline)
	if m.p.Mutant != mutant.None {
		s += " mutant=" + string(m.p.Mutant)
	}
	return s
}

// Init is one state per input vector: every process holds its share, and
// (DGRP) the shared store holds every share, so that a substitute in the
// first sorting round can read it.
func (m *Model) Init() []*World {
	var out []*World
	for k, in := range m.inputs {
		w := &World{input: k, procs: make([]*hq.Process, m.p.N), store: make([][]int32, m.p.N)}
		for i := range w.procs {
			w.procs[i], _ = hq.NewProcess(core.Rank(i), m.cfg, in[i]) // validated by NewModel
			if !m.cfg.NoStore {
				w.store[i], _ = w.procs[i].List(core.Rank(i))
			}
		}
		out = append(out, w)
	}
	return out
}

// Action kinds.
const (
	// Choose: the environment fixes the round's non-recommended set (P is
	// its bit mask).
	Choose uint8 = iota + 1
	// Start: process P starts the round.
	Start
	// Deliver: message I in flight arrives (or is dropped: its receiver
	// takes no part in the round).
	Deliver
	// Barrier: every recommended process ended the round; the next begins.
	Barrier
)

// KindName names an action kind.
func (m *Model) KindName(k uint8) string {
	switch k {
	case Choose:
		return "choose"
	case Start:
		return "start"
	case Deliver:
		return "deliver"
	case Barrier:
		return "barrier"
	}
	return fmt.Sprintf("kind(%d)", k)
}

func maskSet(mask int32) core.RankSet {
	var s core.RankSet
	for r := 0; mask>>r != 0; r++ {
		if mask&(1<<r) != 0 {
			s.Add(core.Rank(r))
		}
	}
	return s
}

func setMask(s core.RankSet) int32 {
	var mask int32
	s.Each(func(r core.Rank) { mask |= 1 << r })
	return mask
}

// choices lists the non-recommended sets the environment may pick for the
// next round of w: with a Schedule, its entry; for DGRP every set of at
// most MaxNonRec processes; for ULFM every superset of the failed set of
// at most MaxNonRec.
func (m *Model) choices(w *World) []int32 {
	if m.p.Schedule != nil {
		return []int32{setMask(m.p.Schedule[w.round])}
	}
	var out []int32
	var failed int32
	if m.p.Baseline == ULFM {
		failed = setMask(w.nonRec)
	}
	for mask := int32(0); mask < 1<<m.p.N; mask++ {
		if mask&failed == failed && popcount(mask) <= m.p.MaxNonRec {
			out = append(out, mask)
		}
	}
	return out
}

func popcount(x int32) int {
	n := 0
	for ; x != 0; x &= x - 1 {
		n++
	}
	return n
}

// Actions lists the enabled actions in a fixed order.
func (m *Model) Actions(w *World, buf []checker.Action) []checker.Action {
	if w.round >= m.dim {
		return buf
	}
	if !w.chosen {
		for _, mask := range m.choices(w) {
			buf = append(buf, checker.Action{Kind: Choose, P: mask})
		}
		return buf
	}
	for i := range core.Rank(m.p.N) {
		if !w.nonRec.Has(i) && !w.started.Has(i) {
			buf = append(buf, checker.Action{Kind: Start, P: int32(i)})
		}
	}
	for k, msg := range w.net {
		if w.nonRec.Has(msg.To) || w.procs[msg.To].Active() {
			buf = append(buf, checker.Action{Kind: Deliver, P: int32(msg.To), Q: int32(msg.From), I: int32(k)})
		}
	}
	if len(w.net) == 0 && m.roundOver(w) {
		buf = append(buf, checker.Action{Kind: Barrier})
	}
	return buf
}

func (m *Model) roundOver(w *World) bool {
	for i := range core.Rank(m.p.N) {
		if !w.nonRec.Has(i) && (!w.started.Has(i) || w.procs[i].Active()) {
			return false
		}
	}
	return true
}

func (m *Model) current(w *World) hq.Round {
	return hq.Round{N: m.p.N, S: m.dim - w.round, Index: w.round, NonRec: w.nonRec}
}

func (w *World) clone() *World {
	c := *w
	c.procs = slices.Clone(w.procs) // copied on write (touch)
	c.store = slices.Clone(w.store) // lists are never changed in place
	c.net = slices.Clone(w.net)
	c.nonRec = w.nonRec.Clone()
	c.started = w.started.Clone()
	return &c
}

func (w *World) touch(r core.Rank) *hq.Process {
	w.procs[r] = w.procs[r].Clone()
	return w.procs[r]
}

// Apply takes a in w.
func (m *Model) Apply(w *World, a checker.Action) (*World, error) {
	if w.round >= m.dim {
		return nil, fmt.Errorf("the sort is over")
	}
	n := w.clone()
	switch a.Kind {
	case Choose:
		if w.chosen || !slices.Contains(m.choices(w), a.P) {
			return nil, fmt.Errorf("choose %v not enabled", maskSet(a.P))
		}
		set := maskSet(a.P)
		if m.p.Baseline == ULFM {
			if err := m.fail(n, set); err != nil {
				return nil, err
			}
		}
		n.nonRec, n.chosen, n.started = set, true, core.RankSet{}
		return n, nil
	case Start:
		r := core.Rank(a.P)
		if !w.chosen || !r.Valid(m.p.N) || w.nonRec.Has(r) || w.started.Has(r) {
			return nil, fmt.Errorf("start p%d not enabled", a.P)
		}
		eff, err := n.touch(r).Start(m.current(w), func(v core.Rank) []int32 { return w.store[v] })
		if err != nil {
			return nil, err
		}
		n.stats.work = slices.Clone(n.stats.work)
		if n.stats.work == nil {
			n.stats.work = make([]int, m.p.N)
		}
		for _, v := range eff.Reads {
			n.stats.Read += len(w.store[v])
			n.stats.work[r] += len(w.store[v])
		}
		for _, v := range m.current(w).Plays(r) {
			l, _ := n.procs[r].List(v)
			n.stats.work[r] += len(l)
		}
		n.started.Add(r)
		n.apply(eff)
		return n, nil
	case Deliver:
		if !w.chosen || a.I < 0 || int(a.I) >= len(w.net) {
			return nil, fmt.Errorf("deliver %d: no such message", a.I)
		}
		msg := w.net[a.I]
		n.net = slices.Delete(n.net, int(a.I), int(a.I)+1)
		if w.nonRec.Has(msg.To) {
			return n, nil // a non-recommended process takes no part in the round
		}
		if !w.procs[msg.To].Active() {
			return nil, fmt.Errorf("deliver %v: p%d has not started the round", msg, msg.To)
		}
		eff, err := n.touch(msg.To).Deliver(msg)
		if err != nil {
			return nil, err
		}
		if !msg.IsPivot && n.stats.work != nil {
			n.stats.work = slices.Clone(n.stats.work)
			n.stats.work[msg.To] += len(msg.Values)
		}
		n.apply(eff)
		return n, nil
	case Barrier:
		if !w.chosen || len(w.net) > 0 || !m.roundOver(w) {
			return nil, fmt.Errorf("barrier not enabled")
		}
		n.last = m.current(w)
		n.stats.Barriers++
		n.stats.Span += slices.Max(append([]int{0}, n.stats.work...))
		n.stats.work = nil
		n.round++
		n.chosen, n.started = false, core.RankSet{}
		if m.p.Baseline == DGRP {
			n.nonRec = core.RankSet{}
		}
		return n, nil
	}
	return nil, fmt.Errorf("unknown action kind %d", a.Kind)
}

// apply adds a step's messages to the network and its writes to the store.
func (w *World) apply(eff hq.Effects) {
	for _, wr := range eff.Writes {
		w.store[wr.V] = wr.Values
		w.stats.Saved += len(wr.Values)
	}
	w.stats.Local += eff.Local
	for _, msg := range eff.Out {
		if msg.IsPivot {
			w.stats.Pivots++
		} else {
			w.stats.Lists++
			w.stats.Moved += len(msg.Values)
		}
		enc := msg.AppendBinary(nil)
		k, _ := slices.BinarySearchFunc(w.net, enc, func(x hq.Msg, e []byte) int { return bytes.Compare(x.AppendBinary(nil), e) })
		w.net = slices.Insert(w.net, k, msg)
	}
}

// Encode appends the canonical encoding of w.
func (m *Model) Encode(b []byte, w *World) []byte {
	b = core.AppendUint(b, uint64(w.input))
	b = core.AppendUint(b, uint64(w.round))
	b = core.AppendBool(b, w.chosen)
	b = w.nonRec.AppendBinary(b)
	b = w.started.AppendBinary(b)
	for _, p := range w.procs {
		b = p.AppendBinary(b)
	}
	for _, l := range w.store {
		b = core.AppendUint(b, uint64(len(l)))
		for _, x := range l {
			b = core.AppendInt(b, int64(x))
		}
	}
	b = core.AppendUint(b, uint64(len(w.net)))
	for _, msg := range w.net {
		b = msg.AppendBinary(b)
	}
	b = core.AppendUint(b, uint64(len(w.lost)))
	for _, x := range w.lost {
		b = core.AppendInt(b, int64(x))
	}
	return w.last.NonRec.AppendBinary(b)
}

// Quiescent: nothing is enabled (the sort is over, or it is stuck).
func (m *Model) Quiescent(w *World) bool {
	return len(m.Actions(w, nil)) == 0
}

// Describe says what a does in w.
func (m *Model) Describe(w *World, a checker.Action) string {
	switch a.Kind {
	case Choose:
		what := "non-recommended"
		if m.p.Baseline == ULFM {
			what = "failed"
		}
		return fmt.Sprintf("sorting round %d (s=%d): %s %v", w.round+1, m.dim-w.round, what, maskSet(a.P))
	case Start:
		return fmt.Sprintf("p%d starts sorting round %d", a.P, w.round+1)
	case Deliver:
		if a.I >= 0 && int(a.I) < len(w.net) {
			msg := w.net[a.I]
			if w.nonRec.Has(msg.To) {
				return fmt.Sprintf("%v dropped: p%d takes no part in the round", msg, msg.To)
			}
			return "deliver " + msg.String()
		}
	case Barrier:
		return fmt.Sprintf("barrier: sorting round %d over", w.round+1)
	}
	return a.String()
}

// Output is the sorted lists the run ends with, by virtual rank: each
// held by the process that played it in the last sorting round. ok is
// false before the sort is over.
func (m *Model) Output(w *World) ([][]int32, bool) {
	if w.round < m.dim {
		return nil, false
	}
	out := make([][]int32, m.p.N)
	for v := range core.Rank(m.p.N) {
		out[v], _ = w.procs[w.last.Player(v)].List(v)
	}
	return out, true
}

// String summarises w for a person.
func (w *World) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "round %d nonrec %v;", w.round, w.nonRec)
	for _, p := range w.procs {
		b.WriteString(" " + p.String() + ";")
	}
	return b.String()
}
