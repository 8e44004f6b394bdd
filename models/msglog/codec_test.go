package msglog

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// TestCodecRoundTrip: over the first reachable worlds of each logger (one
// crash and its restart), of the delayed-acknowledgement mode and of the
// probe program, every world decodes to its own encoding and every
// process's state back to its bytes; every cut of a process's encoding is
// refused.
func TestCodecRoundTrip(t *testing.T) {
	for _, p := range []Params{
		{Program: "fig51", Procs: 3, Logger: el.Centralized, F: 1, Crashes: 1, Recoveries: 1},
		{Program: "fig51", Procs: 3, Logger: el.Classic, F: 1, Crashes: 1, Recoveries: 1},
		{Program: "fig51", Procs: 3, Logger: el.Parallel, F: 1, Crashes: 1, Recoveries: 1},
		{Program: "gather", Procs: 3, Logger: el.Centralized, F: 1, Crashes: 1, Recoveries: 1, DelayedAck: true},
		{Program: "probe", Procs: 3, Logger: el.Centralized, F: 1, Crashes: 1, Recoveries: 1},
	} {
		name := fmt.Sprintf("%s/%v/delayed=%v", p.Program, p.Logger, p.DelayedAck)
		m, err := NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		c, ec, _ := p.Config()
		cd := codec(c, ec)
		cuts, n := 0, 0
		r := rand.New(rand.NewPCG(1, 2))
		for range 30 {
			w := m.Init()[0]
			for range 400 {
				n++
				check(t, name, m, cd, w, p.Procs, &cuts)
				as := m.Actions(w, nil)
				if len(as) == 0 {
					break
				}
				if w, err = m.Apply(w, as[r.IntN(len(as))]); err != nil {
					t.Fatal(err)
				}
			}
		}
		t.Logf("%s: %d worlds (with repeats)", name, n)
	}
	if _, err := ml.DecodeEvent([]byte{9}); err == nil {
		t.Error("event kind 9 decoded")
	}
}

// check fails t unless w decodes to its encoding and each process's
// state (of the first procs ranks) decodes to its bytes; the first 50
// states checked also have every cut of their encoding refused.
func check(t *testing.T, name string, m *env.Model, cd env.Codec, w *env.World, procs int, cuts *int) {
	t.Helper()
	wb := m.Encode(nil, w)
	back, err := m.Decode(wb)
	if err != nil || !bytes.Equal(m.Encode(nil, back), wb) {
		t.Fatalf("%s: world does not round-trip: %v", name, err)
	}
	for r := range core.Rank(procs) {
		enc := w.Node(r).AppendBinary(nil)
		got, err := cd.Node(enc, r, w.N())
		if err != nil || !bytes.Equal(got.AppendBinary(nil), enc) {
			t.Fatalf("%s: %v does not round-trip: %v", name, w.Node(r), err)
		}
		if *cuts < 50 {
			*cuts++
			for i := range len(enc) {
				if _, err := cd.Node(enc[:i], r, w.N()); err == nil {
					t.Fatalf("%s: %v cut at %d of %d decoded", name, w.Node(r), i, len(enc))
				}
			}
		}
	}
}
