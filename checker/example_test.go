package checker_test

import (
	"errors"
	"fmt"

	"github.com/ftkernel/ftkernel/checker"
)

// counters is a model of two processes that each count to 2; a state is
// the pair of counts. Action kind 0 increments process P's counter.
type counters struct{}

type pair [2]uint8

func (counters) Name() string          { return "counters" }
func (counters) Init() []pair          { return []pair{{0, 0}} }
func (counters) Quiescent(s pair) bool { return s == pair{2, 2} }
func (counters) Actions(s pair, buf []checker.Action) []checker.Action {
	for p := range s {
		if s[p] < 2 {
			buf = append(buf, checker.Action{P: int32(p)})
		}
	}
	return buf
}
func (counters) Apply(s pair, a checker.Action) (pair, error) {
	if a.P < 0 || a.P > 1 || s[a.P] >= 2 {
		return s, errors.New("not enabled")
	}
	s[a.P]++
	return s, nil
}
func (counters) Encode(b []byte, s pair) []byte { return append(b, s[0], s[1]) }
func (counters) Describe(s pair, a checker.Action) string {
	return fmt.Sprintf("p%d counts to %d", a.P, s[a.P]+1)
}

// Decode makes counters a checker.Codec: BFS keeps its queue as encodings.
func (counters) Decode(b []byte) (pair, error) {
	if len(b) != 2 || b[0] > 2 || b[1] > 2 {
		return pair{}, errors.New("not a pair of counts")
	}
	return pair{b[0], b[1]}, nil
}
func (counters) Decodes() bool { return true }

func (counters) Properties() []checker.Property[pair] {
	return []checker.Property[pair]{{
		Name: "NotBothTwo", Kind: checker.Invariant, Doc: "the counters are never both 2",
		Check: func(s pair) error {
			if s == (pair{2, 2}) {
				return errors.New("both counters are 2")
			}
			return nil
		},
	}}
}

// Example checks the counters exhaustively: BFS finds the shortest path to
// the violation of the invariant, with the queue held as encodings.
func Example() {
	res := checker.BFS[pair](counters{}, checker.Options{Workers: 1})
	fmt.Printf("%d states, %d generated, complete=%v, compact queue=%v\n", res.States, res.Transitions, res.Complete, res.Compact)
	for _, tr := range res.Violations {
		fmt.Printf("%s violated after %d steps:\n", tr.Violation.Property, len(tr.Steps))
		for _, st := range tr.Steps {
			fmt.Println(" ", st.Text)
		}
	}
	// Output:
	// 9 states, 13 generated, complete=false, compact queue=true
	// NotBothTwo violated after 4 steps:
	//   p0 counts to 1
	//   p0 counts to 2
	//   p1 counts to 1
	//   p1 counts to 2
}
