package replica

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	sm "github.com/ftkernel/ftkernel/statemachine/replica"
)

// TestCodecRoundTrip: on every state of seeded random walks, with every
// mutant (the mutant orders included: mid-order-ignores-dst leaves ties in
// the log), decoding a world's encoding gives one that re-encodes to the
// same bytes, fingerprints the same, enables the same actions, passes and
// fails the same properties, and whose every successor encodes as the
// original's.
func TestCodecRoundTrip(t *testing.T) {
	for _, mu := range append([]string{""}, mutantStrings()...) {
		p := Params{Program: "master-worker", Procs: 3, Degree: 2, ReplicateRank0: true, Crashes: 1, Network: env.FIFO, Mutant: mutantName(mu)}
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		// A model of its own decodes, and never steps: the node states a
		// model interns when it steps would spare the decoders. Another
		// steps the decoded worlds.
		d, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		states := 0
		for range 50 {
			w := m.Init()[0]
			for {
				states++
				b := m.Encode(nil, w)
				got, err := d.Decode(b)
				if err != nil {
					t.Fatalf("%q: %v: %v", mu, w, err)
				}
				as := m.Actions(w, nil)
				if string(d.Encode(nil, got)) != string(b) || d.Fingerprint(got) != m.Fingerprint(w) ||
					d.Quiescent(got) != m.Quiescent(w) || !slices.Equal(as, d.Actions(got, nil)) ||
					verdicts(m, w) != verdicts(d, got) {
					t.Fatalf("%q: %v: the decoded world differs", mu, w)
				}
				stepped, err := e.Decode(b)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range as {
					n1, err1 := m.Apply(w, a)
					n2, err2 := e.Apply(stepped, a)
					if err1 != nil || err2 != nil || string(m.Encode(nil, n1)) != string(e.Encode(nil, n2)) {
						t.Fatalf("%q: %s: the step differs after decoding (%v, %v)", mu, m.Describe(w, a), err1, err2)
					}
				}
				if len(as) == 0 {
					break
				}
				if w, err = m.Apply(w, as[r.IntN(len(as))]); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%-24q %d states round-trip", mu, states)
	}
}

// TestCompactFrontier: BFS keeps the replica model's frontier as
// encodings, and finds the whole-state search's states, transitions, depth
// and violations, on the correct protocol and on mid-order-ignores-dst.
func TestCompactFrontier(t *testing.T) {
	for _, mu := range []string{"", string(sm.MutantMIDOrderIgnoresDst)} {
		p := Params{Program: "master-worker", Procs: 3, Degrees: []int{2, 1, 1}, Crashes: 1, Network: env.FIFO, Mutant: mutantName(mu)}
		opt := checker.Options{ContinueAfterViolation: true}
		comp := search(t, p, opt)
		opt.WholeStates = true
		whole := search(t, p, opt)
		if !comp.Compact || whole.Compact || comp.States != whole.States || comp.Transitions != whole.Transitions ||
			comp.Depth != whole.Depth || fmt.Sprint(violations(comp)) != fmt.Sprint(violations(whole)) {
			t.Fatalf("%q: compact %v %d/%d/%d %v, whole %v %d/%d/%d %v", mu, comp.Compact, comp.States, comp.Transitions, comp.Depth,
				violations(comp), whole.Compact, whole.States, whole.Transitions, whole.Depth, violations(whole))
		}
		t.Logf("%q: %d states, %d violations, %.1f bytes per queued state", mu, comp.States, len(comp.Violations), comp.QueueBytesPerState())
	}
}

func mutantStrings() []string {
	var out []string
	for _, m := range sm.Mutants {
		out = append(out, string(m))
	}
	return out
}

// verdicts is the properties that fail in w, in order.
func verdicts(m *Model, w *env.World) string {
	var out []string
	q := m.Quiescent(w)
	for _, p := range m.Properties() {
		if p.Check == nil || p.Kind == checker.Quiescence && !q {
			continue
		}
		if v := p.Check(w); v != nil {
			out = append(out, p.Name)
		}
	}
	return fmt.Sprint(out)
}

func violations(res *checker.Result) []string {
	var out []string
	for _, v := range res.Violations {
		out = append(out, fmt.Sprintf("%s/%d", v.Violation.Property, len(v.Steps)))
	}
	return out
}
