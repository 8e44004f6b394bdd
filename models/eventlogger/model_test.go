package eventlogger

import (
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"

	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestCodecRoundTrip: every world of random walks of each logger decodes
// to a world with the same encoding, fingerprint and actions.
func TestCodecRoundTrip(t *testing.T) {
	for _, p := range []Params{
		{Kind: el.Centralized, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 1, CrashLogger: true, Delta: 1, Timing: env.BoundedDelay},
		{Kind: el.Classic, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 1, Delta: 1, Timing: env.BoundedDelay},
		{Kind: el.Parallel, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 1, Delta: 1, Timing: env.BoundedDelay},
		{Kind: el.Classic, Procs: 2, F: 1, Saves: 2, Crashes: 2, Recoveries: 2, Delta: 1, Timing: env.BoundedDelay},
		{Kind: el.Centralized, Procs: 2, F: 1, Saves: 2, Crashes: 2, Recoveries: 2, Delta: 1, Timing: env.BoundedDelay},
		{Kind: el.Parallel, Procs: 2, F: 1, Saves: 1, Crashes: 1, Delta: 1, Experimental: true, Mutant: el.MutantRetrieveOneAcceptor, Timing: env.BoundedDelay},
	} {
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		states := 0
		for range 20 {
			w := m.Init()[0]
			for range 300 {
				states++
				b := m.Encode(nil, w)
				got, err := d.Decode(b)
				if err != nil {
					t.Fatalf("%v: %v: %v", p.Kind, w, err)
				}
				if string(d.Encode(nil, got)) != string(b) || d.Fingerprint(got) != m.Fingerprint(w) {
					t.Fatalf("%v: %v: the decoded world differs", p.Kind, w)
				}
				as := m.Actions(w, nil)
				if got := d.Actions(got, nil); len(got) != len(as) {
					t.Fatalf("%v: %v: %d actions decoded, %d", p.Kind, w, len(got), len(as))
				}
				if len(as) == 0 {
					break
				}
				if w, err = m.Apply(w, as[r.IntN(len(as))]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if states < 100 {
			t.Fatalf("%v: only %d states", p.Kind, states)
		}
	}
}
