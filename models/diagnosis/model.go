// Package diagnosis binds the diagnosis algorithms of statemachine/diagnosis (de Camargo's
// thesis, chapter 3) to the checker: the models adsd, hiadsd and vcube, their flags, properties,
// mutants and simulations.
//
// A state is one system of n nodes (every node's diagnostic state and the real fault set), the
// rounds since the last event while diagnosis has not converged, the events taken, and the tests
// of the current cycle of log2 n rounds. The actions are a test round (Kind 1: every fault-free
// node runs its tests; test outcomes are accurate, so a round is deterministic) and an event
// (Kind 2, P: node P changes state), enabled only once diagnosis has converged (§3.3: "a new event
// only happens after the previous one has been diagnosed") while events remain. The initial
// states are every fault set of at most faulty-max nodes, leaving one node fault-free, with every
// node believing every node fault-free: the checker branches over fault sets and event
// placements, never over test outcomes, which PMC's accurate tests fix.
//
// vcube --timing bounded is another model: VCube over a network (NewEnvModel), one
// statemachine/diagnosis.VCubeNode per node in checker/env's bounded-delay environment, with
// crashes at any step; it is what ftcheck run vcube runs and ftcheck validate replays.
package diagnosis

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// Action kinds.
const (
	KindRound uint8 = iota + 1
	KindEvent
)

// Algorithm names the three models.
const (
	ADSD   = "adsd"
	HiADSD = "hiadsd"
	VCube  = "vcube"
)

// State is one reachable configuration; it is never changed once built.
type State struct {
	Sys dg.System
	// Since counts the test rounds since the start or the last event while diagnosis has not
	// converged; it is 0 once converged.
	Since int
	// Events is the number of events taken.
	Events int
	// CycleTests counts the tests of the rounds since the last round with s = 1 (VCube, Hi-ADSD).
	CycleTests int
	// Last is the report of the round that led here (not part of the encoding: only transition
	// properties read it).
	Last *dg.RoundReport
}

// Model is one of the three algorithms over n nodes, every fault set of at most FaultyMax
// nodes, and at most Events state changes after the start.
type Model struct {
	Alg                  string
	N, FaultyMax, Events int
	Mutant               mutant.Name
	props                []checker.Property[*State]
}

// New returns the model; errors: an unknown algorithm, n out of range (adsd: 2 … 16; hiadsd,
// vcube: a power of two 2 … 16), faulty-max outside 0 … n−1, events < 0, an unknown mutant.
func New(alg string, n, faultyMax, events int, m mutant.Name) (*Model, error) {
	if n < 2 || n > MaxCheckN {
		return nil, fmt.Errorf("%s: --n %d: out of range 2 … %d", alg, n, MaxCheckN)
	}
	if alg != ADSD && n&(n-1) != 0 {
		return nil, fmt.Errorf("%s: --n %d: not a power of two", alg, n)
	}
	if faultyMax < 0 || faultyMax > n-1 {
		return nil, fmt.Errorf("%s: --faulty-max %d: out of range 0 … %d", alg, faultyMax, n-1)
	}
	if events < 0 {
		return nil, fmt.Errorf("%s: --events %d: negative", alg, events)
	}
	md := &Model{Alg: alg, N: n, FaultyMax: faultyMax, Events: events, Mutant: m}
	if _, err := md.newSystem(nil); err != nil {
		return nil, err
	}
	md.props = md.properties()
	return md, nil
}

// MaxCheckN is the largest n the checker takes.
const MaxCheckN = 16

func (md *Model) newSystem(faulty []core.Rank) (dg.System, error) {
	return NewSystem(md.Alg, md.N, faulty, md.Mutant)
}

// NewSystem returns a fresh system of algorithm alg (ADSD, HiADSD or VCube).
func NewSystem(alg string, n int, faulty []core.Rank, m mutant.Name) (dg.System, error) {
	switch alg {
	case ADSD:
		return dg.NewADSD(n, faulty, m)
	case HiADSD:
		return dg.NewHiADSD(n, faulty, m)
	case VCube:
		return dg.NewVCube(n, faulty, m)
	}
	return nil, fmt.Errorf("diagnosis: unknown algorithm %q", alg)
}

// Clone returns a deep copy of a system of this package.
func Clone(sys dg.System) dg.System {
	switch s := sys.(type) {
	case *dg.ADSD:
		return s.Clone()
	case *dg.HiADSD:
		return s.Clone()
	case *dg.VCube:
		return s.Clone()
	}
	panic(fmt.Sprintf("diagnosis: unknown system %T", sys))
}

// LogN is log2 n, rounded down.
func LogN(n int) int { return bits.Len(uint(n)) - 1 }

// Name identifies the model and its parameters.
func (md *Model) Name() string {
	s := fmt.Sprintf("%s n=%d faulty-max=%d events=%d", md.Alg, md.N, md.FaultyMax, md.Events)
	if md.Mutant != mutant.None {
		s += " mutant=" + string(md.Mutant)
	}
	return s
}

// Init returns every fault set of at most FaultyMax nodes, by increasing bit mask.
func (md *Model) Init() []*State {
	var out []*State
	for mask := uint64(0); mask < 1<<uint(md.N); mask++ {
		if bits.OnesCount64(mask) > md.FaultyMax {
			continue
		}
		var faulty []core.Rank
		for r := 0; r < md.N; r++ {
			if mask>>uint(r)&1 == 1 {
				faulty = append(faulty, core.Rank(r))
			}
		}
		sys, err := md.newSystem(faulty)
		if err != nil {
			panic(err) // unreachable: New built one
		}
		out = append(out, md.settle(&State{Sys: sys}))
	}
	return out
}

// settle resets Since once diagnosis has converged.
func (md *Model) settle(s *State) *State {
	if dg.Converged(s.Sys, md.N) {
		s.Since = 0
	}
	return s
}

// Actions: a round, always; an event at any node, once converged, while events remain and the
// fault set stays within FaultyMax with one node fault-free.
func (md *Model) Actions(s *State, buf []checker.Action) []checker.Action {
	buf = append(buf, checker.Action{Kind: KindRound})
	if s.Events >= md.Events || !dg.Converged(s.Sys, md.N) {
		return buf
	}
	nf := len(s.Sys.FaultSet())
	for p := 0; p < md.N; p++ {
		if s.Sys.Faulty(core.Rank(p)) || nf+1 <= md.FaultyMax && nf+1 < md.N {
			buf = append(buf, checker.Action{Kind: KindEvent, P: int32(p)})
		}
	}
	return buf
}

func (md *Model) enabled(s *State, a checker.Action) bool {
	for _, b := range md.Actions(s, nil) {
		if a == b {
			return true
		}
	}
	return false
}

// Apply takes a round or an event.
func (md *Model) Apply(s *State, a checker.Action) (*State, error) {
	if !md.enabled(s, a) {
		return nil, fmt.Errorf("%s: %v is not enabled", md.Alg, a)
	}
	n := &State{Sys: Clone(s.Sys), Since: s.Since, Events: s.Events, CycleTests: s.CycleTests}
	switch a.Kind {
	case KindRound:
		rep := n.Sys.Round()
		n.Last = &rep
		if rep.S <= 1 { // a new cycle; Adaptive-DSD (S = 0) counts one round
			n.CycleTests = 0
		}
		n.CycleTests += len(rep.Tests)
		if n.Since < LatencyBound(md.Alg, md.N) {
			n.Since++ // capped at the bound, so that a run that never converges stays finite
		}
	case KindEvent:
		n.Sys.Event(core.Rank(a.P))
		n.Events++
		n.Since = 0
	}
	return md.settle(n), nil
}

// Encode appends the canonical encoding: fault set, diagnostic state, s, Since, Events,
// CycleTests.
func (md *Model) Encode(b []byte, s *State) []byte {
	var mask uint64
	for _, r := range s.Sys.FaultSet() {
		mask |= 1 << uint(r)
	}
	b = binary.AppendUvarint(b, mask)
	switch sys := s.Sys.(type) {
	case *dg.ADSD:
		for _, t := range sys.TestedUp {
			for _, r := range t {
				b = append(b, byte(r+1))
			}
		}
	case *dg.HiADSD:
		b = append(b, byte(sys.S))
		for _, row := range sys.Believe {
			var m uint64
			for k, f := range row {
				if f {
					m |= 1 << uint(k)
				}
			}
			b = binary.AppendUvarint(b, m)
		}
	case *dg.VCube:
		b = append(b, byte(sys.S))
		for _, row := range sys.TS {
			for _, ts := range row {
				b = binary.AppendUvarint(b, uint64(ts))
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(s.Since))
	b = binary.AppendUvarint(b, uint64(s.Events))
	return binary.AppendUvarint(b, uint64(s.CycleTests))
}

// Quiescent: never; rounds go on forever.
func (md *Model) Quiescent(*State) bool { return false }

// Describe says what a does in s.
func (md *Model) Describe(s *State, a checker.Action) string {
	switch a.Kind {
	case KindRound:
		n, err := md.Apply(s, a)
		if err != nil {
			return err.Error()
		}
		d := fmt.Sprintf("test round: %d tests", len(n.Last.Tests))
		if n.Last.S > 0 {
			d = fmt.Sprintf("test round s=%d: %d tests", n.Last.S, len(n.Last.Tests))
		}
		if len(n.Last.Tests) > 0 && len(n.Last.Tests) <= 64 {
			d += " " + formatTests(n.Last.Tests)
		}
		return d
	case KindEvent:
		if s.Sys.Faulty(core.Rank(a.P)) {
			return fmt.Sprintf("p%d recovers", a.P)
		}
		return fmt.Sprintf("p%d fails", a.P)
	}
	return a.String()
}

func formatTests(ts []dg.Test) string {
	if len(ts) == 0 {
		return "(none)"
	}
	b := make([]byte, 0, 8*len(ts))
	for k, t := range ts {
		if k > 0 {
			b = append(b, ' ')
		}
		b = fmt.Appendf(b, "%d→%d", t.Tester, t.Tested)
	}
	return string(b)
}

// KindName names the action kinds in traces.
func (md *Model) KindName(k uint8) string {
	switch k {
	case KindRound:
		return "round"
	case KindEvent:
		return "event"
	}
	return ""
}

// Properties lists the model's properties.
func (md *Model) Properties() []checker.Property[*State] { return md.props }

// String shows the fault set, every fault-free node's diagnosis, and the counters:
// "faulty [p1 p4] | p0 diagnoses {1,4} | … | since 2, events 0".
func (s *State) String() string {
	b := fmt.Appendf(nil, "faulty %v", s.Sys.FaultSet())
	for x := range s.Sys.Diagnose(0) {
		if s.Sys.Faulty(core.Rank(x)) {
			continue
		}
		var bad []int
		for k, v := range s.Sys.Diagnose(core.Rank(x)) {
			if v {
				bad = append(bad, k)
			}
		}
		b = fmt.Appendf(b, " | p%d diagnoses %s", x, setString(bad))
	}
	return string(fmt.Appendf(b, " | since %d, events %d", s.Since, s.Events))
}

// setString writes node numbers as a set, "{1,4}".
func setString(ks []int) string {
	b := []byte("{")
	for i, k := range ks {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(k), 10)
	}
	return string(append(b, '}'))
}
