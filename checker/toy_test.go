package checker

import (
	"errors"
	"fmt"
	"math/rand/v2"
)

// grid is a toy model: a point (X, Y) in [0,N]², moved by incX (kind 1)
// and incY (kind 2). It has (N+1)² states, 1+2N(N+1) generated states and
// diameter 2N. Quiescent at (N, N).
type grid struct {
	N     int
	props []Property[pt]
	// badApply makes Apply of incY fail at (1, 1).
	badApply bool
	inits    []pt
}

type pt struct{ X, Y int }

const (
	incX uint8 = 1
	incY uint8 = 2
)

func (g *grid) Name() string { return fmt.Sprintf("grid n=%d", g.N) }

func (g *grid) Init() []pt {
	if g.inits != nil {
		return g.inits
	}
	return []pt{{}}
}

func (g *grid) Actions(s pt, buf []Action) []Action {
	if s.X < g.N {
		buf = append(buf, Action{Kind: incX})
	}
	if s.Y < g.N {
		buf = append(buf, Action{Kind: incY})
	}
	return buf
}

func (g *grid) Apply(s pt, a Action) (pt, error) {
	switch {
	case a.Kind == incX && s.X < g.N:
		s.X++
	case a.Kind == incY && s.Y < g.N:
		if g.badApply && s == (pt{1, 1}) {
			return s, errors.New("boom")
		}
		s.Y++
	default:
		return s, fmt.Errorf("%v not enabled at %v", a, s)
	}
	return s, nil
}

func (g *grid) Encode(b []byte, s pt) []byte { return append(b, byte(s.X), byte(s.Y)) }

func (g *grid) Quiescent(s pt) bool { return s.X == g.N && s.Y == g.N }

func (g *grid) Describe(s pt, a Action) string {
	if a.Kind == incX {
		return fmt.Sprintf("incX at (%d,%d)", s.X, s.Y)
	}
	return fmt.Sprintf("incY at (%d,%d)", s.X, s.Y)
}

func (g *grid) Properties() []Property[pt] { return g.props }

// sumBelow is the invariant X+Y < k.
func sumBelow(k int) Property[pt] {
	return Property[pt]{Name: "SumBelow", Kind: Invariant, Check: func(s pt) error {
		if s.X+s.Y >= k {
			return fmt.Errorf("x+y=%d", s.X+s.Y)
		}
		return nil
	}}
}

// xStepBelow is the transition property "no step makes X equal to k".
func xStepBelow(k int) Property[pt] {
	return Property[pt]{Name: "XStep", Kind: Transition, CheckStep: func(p pt, a Action, n pt) error {
		if n.X == k && p.X != k {
			return fmt.Errorf("step to x=%d", k)
		}
		return nil
	}}
}

// greedy is a grid whose Sampler always prefers incX.
type greedy struct{ *grid }

func (g greedy) Sample(s pt, r *rand.Rand, buf []Action) (Action, bool) {
	buf = g.Actions(s, buf)
	if len(buf) == 0 {
		return Action{}, false
	}
	return buf[0], true
}

// fork: from 0, "a" (kind 1) goes to s+1 up to 3, "b" (kind 2) jumps to
// 10+s, a dead end. Quiescent at 3 and at every dead end.
type fork struct{ props []Property[int] }

func (f *fork) Name() string         { return "fork" }
func (f *fork) Init() []int          { return []int{0} }
func (f *fork) Quiescent(s int) bool { return s == 3 || s >= 10 }
func (f *fork) Actions(s int, buf []Action) []Action {
	if s < 3 {
		buf = append(buf, Action{Kind: 1}, Action{Kind: 2})
	}
	return buf
}
func (f *fork) Apply(s int, a Action) (int, error) {
	if s >= 3 {
		return s, errors.New("not enabled")
	}
	if a.Kind == 1 {
		return s + 1, nil
	}
	return 10 + s, nil
}
func (f *fork) Encode(b []byte, s int) []byte   { return append(b, byte(s)) }
func (f *fork) Describe(s int, a Action) string { return fmt.Sprintf("%d:%d", s, a.Kind) }
func (f *fork) Properties() []Property[int]     { return f.props }

// endsAtThree is the quiescence property "the run ends at 3".
var endsAtThree = Property[int]{Name: "EndsAtThree", Kind: Quiescence, Check: func(s int) error {
	if s != 3 {
		return fmt.Errorf("ended at %d", s)
	}
	return nil
}}

// door: state bit 0 = unlocked, bit 1 = open, bits 2.. = a noise counter
// up to 5. Actions: unlock (1) when locked, open (2) when unlocked and
// closed, noise (3) while the counter is below 5. Invariant: never open.
type door struct{}

func (door) Name() string { return "door" }
func (door) Init() []int  { return []int{0} }
func (door) Actions(s int, buf []Action) []Action {
	if s&1 == 0 {
		buf = append(buf, Action{Kind: 1})
	}
	if s&1 != 0 && s&2 == 0 {
		buf = append(buf, Action{Kind: 2})
	}
	if s>>2 < 5 {
		buf = append(buf, Action{Kind: 3})
	}
	return buf
}
func (d door) Apply(s int, a Action) (int, error) {
	switch {
	case a.Kind == 1 && s&1 == 0:
		return s | 1, nil
	case a.Kind == 2 && s&1 != 0 && s&2 == 0:
		return s | 2, nil
	case a.Kind == 3 && s>>2 < 5:
		return s + 4, nil
	}
	return s, errors.New("not enabled")
}
func (door) Encode(b []byte, s int) []byte { return append(b, byte(s)) }
func (door) Quiescent(s int) bool          { return false }
func (door) Describe(s int, a Action) string {
	return [...]string{"", "unlock", "open", "noise"}[a.Kind]
}
func (door) Properties() []Property[int] {
	return []Property[int]{{Name: "Closed", Kind: Invariant, Check: func(s int) error {
		if s&2 != 0 {
			return errors.New("door open")
		}
		return nil
	}}}
}
