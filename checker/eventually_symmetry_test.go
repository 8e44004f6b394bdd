package checker

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// tokenRing is a token on a ring of n places that moves one place per
// step, for ever, and a flag that a "stop" action sets at place 0
// (after which the token still moves). Rotation of the places is a
// symmetry only of the flag-free states, so Canonical maps every flag-free
// state to place 0 and leaves flagged states alone (a partial
// canonicalization is still sound: each class has one representative).
type tokenRing struct{ n int }

type tokenState struct {
	pos  int
	flag bool
}

func (m tokenRing) Name() string              { return fmt.Sprintf("token-ring n=%d", m.n) }
func (m tokenRing) Init() []tokenState        { return []tokenState{{}} }
func (m tokenRing) Quiescent(tokenState) bool { return false }
func (m tokenRing) Actions(s tokenState, buf []Action) []Action {
	return append(buf, Action{Kind: 1})
}
func (m tokenRing) Apply(s tokenState, a Action) (tokenState, error) {
	if a.Kind != 1 {
		return s, errors.New("not enabled")
	}
	return tokenState{pos: (s.pos + 1) % m.n, flag: s.flag}, nil
}
func (m tokenRing) Encode(b []byte, s tokenState) []byte {
	return core.AppendBool(core.AppendUint(b, uint64(s.pos)), s.flag)
}
func (m tokenRing) Describe(s tokenState, a Action) string { return fmt.Sprintf("move from %d", s.pos) }
func (m tokenRing) Canonical(s tokenState) tokenState {
	if !s.flag {
		s.pos = 0
	}
	return s
}
func (m tokenRing) Properties() []Property[tokenState] {
	return []Property[tokenState]{{Name: "flagged", Kind: Eventually,
		Check: func(s tokenState) error {
			if !s.flag {
				return errors.New("no flag")
			}
			return nil
		}}}
}

// TestEventuallySymmetryLiftsLasso: under symmetry the quotient graph of
// the token ring is one state with a self-loop; the lasso reported must be
// a real cycle, the n moves that bring the token back to place 0, and
// replay as such.
func TestEventuallySymmetryLiftsLasso(t *testing.T) {
	for _, n := range []int{1, 3, 5} {
		m := tokenRing{n: n}
		plain := BFS[tokenState](m, Options{})
		sym := BFS[tokenState](m, Options{Symmetry: true})
		if plain.States != int64(n) || sym.States != 1 || !sym.Symmetry {
			t.Fatalf("n=%d: %d states plain, %d under symmetry (used %v); want %d and 1", n, plain.States, sym.States, sym.Symmetry, n)
		}
		for _, r := range []*Result{plain, sym} {
			if r.Err != nil || len(r.Violations) != 1 {
				t.Fatalf("n=%d: err %v, %d violations; want one lasso", n, r.Err, len(r.Violations))
			}
			tr := r.Violations[0]
			if tr.Loop != n || len(tr.Steps) != n {
				t.Errorf("n=%d symmetry=%v: lasso of %d steps, loop %d; want the n-step cycle", n, r.Symmetry, len(tr.Steps), tr.Loop)
			}
			states, err := Replay[tokenState](m, tr)
			var ve *ViolationError
			if !errors.As(err, &ve) || ve.Violation.Property != "flagged" {
				t.Errorf("n=%d symmetry=%v: the lasso does not replay as a violation of flagged: %v", n, r.Symmetry, err)
				continue
			}
			if first, last := states[tr.LoopStart()], states[len(states)-1]; first != last {
				t.Errorf("n=%d symmetry=%v: the cycle ends at %+v, not at its start %+v", n, r.Symmetry, last, first)
			}
		}
	}
}
