package fuzz

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	mlmodel "github.com/ftkernel/ftkernel/models/msglog"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
	ml "github.com/ftkernel/ftkernel/statemachine/msglog"
)

// FuzzMsglogDecodeMessage: DecodeMessage never panics, and what it
// accepts encodes back to the same bytes.
func FuzzMsglogDecodeMessage(f *testing.F) {
	for _, m := range []interface{ AppendBinary([]byte) []byte }{
		ml.App{Seq: 1, Val: 9}, ml.GC{Stable: 3}, ml.ResendFrom{Recv: 2}, ml.Counters{Recv: 1, Sent: 4},
	} {
		f.Add(m.AppendBinary(nil))
	}
	f.Add([]byte{0xF0})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ml.DecodeMessage(b)
		if err != nil {
			return
		}
		if got := m.AppendBinary(nil); !bytes.Equal(got, b) {
			t.Fatalf("%x decodes to %v, which encodes to %x", b, m, got)
		}
	})
}

// FuzzMsglogParseDet: ParseDet never panics, and a determinant it accepts
// is one the protocol writes (type recv or iprobe, a source, repetitions).
func FuzzMsglogParseDet(f *testing.F) {
	for _, s := range []string{"recv|2|0", "iprobe|1|3", "recv|-1|0", "x|1|1", "recv|1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ml.ParseDet(s)
		if err != nil {
			return
		}
		if d.Src < 0 || (d.Type != ml.OpRecv && d.Type != ml.OpIprobe) {
			t.Fatalf("%q parsed to %+v", s, d)
		}
	})
}

// msglogFuzzParams are the environments FuzzMsglogSchedule draws from.
var msglogFuzzParams = []mlmodel.Params{
	{Program: "fig51", Procs: 3, Logger: el.Centralized, Crashes: 2, Recoveries: 2},
	{Program: "probe", Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1},
	{Program: "gather", Procs: 3, Logger: el.Centralized, Crashes: 1, Recoveries: 1, DelayedAck: true},
	{Program: "ring", Procs: 3, Logger: el.Centralized, Crashes: 2, Recoveries: 2, CheckpointEvery: 1},
	{Program: "masterworker", Procs: 3, Logger: el.Parallel, F: 1, Crashes: 1, Recoveries: 1},
	{Program: "fig51", Procs: 3, Logger: el.Classic, F: 1, Crashes: 1, Recoveries: 1},
}

// FuzzMsglogSchedule: data[0] picks the environment, each later byte the
// next action (modulo their number). No step is a model error (Step
// never fails on a reachable event), and every invariant holds on every
// step of the runs the protocol is written for: one failure at a time
// (a schedule that crashes a second process while one is down or
// replaying checks only that no step fails).
func FuzzMsglogSchedule(f *testing.F) {
	for k := range msglogFuzzParams {
		f.Add([]byte{byte(k)})
		f.Add([]byte{byte(k), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
		f.Add(append([]byte{byte(k)}, bytes.Repeat([]byte{7, 3, 250}, 60)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		p := msglogFuzzParams[int(data[0])%len(msglogFuzzParams)]
		m, err := mlmodel.NewModel(p)
		if err != nil {
			t.Fatal(err)
		}
		w := m.Init()[0]
		concurrent := false
		for _, c := range data[1:] {
			as := m.Actions(w, nil)
			if len(as) == 0 {
				return
			}
			a := as[int(c)%len(as)]
			if a.Kind == env.Crash && int(a.P) < p.Procs && !mlmodel.Settled(w, p.Procs) {
				concurrent = true
			}
			next, err := m.Apply(w, a)
			if err != nil {
				t.Fatalf("%s: %v", m.Describe(w, a), err)
			}
			w = next
			if concurrent {
				continue
			}
			for _, pr := range m.Properties() {
				if pr.Kind == checker.Invariant {
					if err := pr.Check(w); err != nil {
						t.Fatalf("%s violated: %v", pr.Name, err)
					}
				}
			}
		}
	})
}
