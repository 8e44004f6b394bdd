package fuzz

import (
	"bytes"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	elmodel "github.com/ftkernel/ftkernel/models/eventlogger"
	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// eventloggerFuzzParams are the environments the eventlogger targets draw
// from: each logger with two application processes and a crash, with
// restarts, with losses and duplicates, and §5.3.1's deployment.
var eventloggerFuzzParams = []elmodel.Params{
	{Kind: el.Centralized, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 1},
	{Kind: el.Centralized, Procs: 2, F: 1, Saves: 2, Crashes: 2, Recoveries: 2, CrashLogger: true},
	{Kind: el.Classic, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 1},
	{Kind: el.Classic, Procs: 2, F: 1, Saves: 2, Crashes: 2, Recoveries: 1, Loss: 1, Dup: 1},
	{Kind: el.Parallel, Procs: 2, F: 1, Saves: 2, Remove: true, Crashes: 2},
	{Kind: el.Parallel, Procs: 2, F: 1, Saves: 2, Crashes: 2, Recoveries: 2, Loss: 1, Dup: 1},
	{Kind: el.Parallel, Procs: 2, F: 1, Saves: 1, Crashes: 1, Experimental: true},
}

// eventloggerModel builds environment k (mod the list) under bounded delay
// Δ = 1. (It takes no testing.TB, which oss-fuzz's testing package lacks.)
func eventloggerModel(k byte) (*env.Model, elmodel.Params, error) {
	p := eventloggerFuzzParams[int(k)%len(eventloggerFuzzParams)]
	p.Timing, p.Delta = env.BoundedDelay, 1
	m, err := elmodel.NewModel(p)
	return m, p, err
}

// FuzzEventloggerSchedule: data[0] picks the environment among
// eventloggerFuzzParams, each later byte the next action (modulo their
// number) among Model.Actions. Every world on the way decodes
// (Model.Decode) to a world of the same encoding, and checker.Replay then
// checks every property on the run (linearizable and termination where
// the run ends quiescent, the environment's timing and fault budgets on
// every step).
func FuzzEventloggerSchedule(f *testing.F) {
	for k := range eventloggerFuzzParams {
		f.Add([]byte{byte(k)})
		f.Add([]byte{byte(k), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
		f.Add(append([]byte{byte(k)}, bytes.Repeat([]byte{7, 3, 250}, 60)...))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		m, _, err := eventloggerModel(data[0])
		if err != nil {
			t.Fatal(err)
		}
		tr := &checker.Trace{Model: m.Name(), Params: m.Params()}
		s := m.Init()[0]
		var buf []checker.Action
		for _, b := range data[1:] {
			if len(tr.Steps) >= maxScheduleSteps || m.Quiescent(s) {
				break
			}
			buf = m.Actions(s, buf[:0])
			if len(buf) == 0 {
				break
			}
			a := buf[int(b)%len(buf)]
			next, err := m.Apply(s, a)
			if err != nil {
				t.Fatalf("model bug: Apply of an enabled action: %v", err)
			}
			tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(s, a)})
			s = next
			enc := m.Encode(nil, s)
			d, err := m.Decode(enc)
			if err != nil || !bytes.Equal(m.Encode(nil, d), enc) {
				t.Fatalf("world after %d steps does not round-trip: %v\n%s", len(tr.Steps), err, tr)
			}
		}
		if report, ok := checkTrace(m, tr); !ok {
			t.Fatalf("eventlogger property violated by schedule %x:\n%s", data, report)
		}
	})
}

// FuzzEventloggerDecode: data[0] % 3 picks el.DecodeMessage, el.DecodeNode
// (data[1] picks the deployment and the rank) or el.DecodeValue; the rest
// is the input. Bad bytes give an error, never a panic; what decodes
// re-encodes to bytes that decode to the same encoding (not always to the
// input bytes: core.Decoder reads varints with binary.Uvarint, which takes
// overlong forms such as d8 00 for 88), and a decoded node takes calls, a
// timer, a restart and failure reports (and its Recover and Forget)
// without panicking.
func FuzzEventloggerDecode(f *testing.F) {
	for k := range eventloggerFuzzParams {
		m, _, err := eventloggerModel(byte(k))
		if err != nil {
			f.Fatal(err)
		}
		s := m.Init()[0]
		var buf []checker.Action
		for _, b := range bytes.Repeat([]byte{1, 4, 2}, 20) {
			buf = m.Actions(s, buf[:0])
			if len(buf) == 0 {
				break
			}
			next, err := m.Apply(s, buf[int(b)%len(buf)])
			if err != nil {
				f.Fatal(err)
			}
			s = next
			for _, e := range s.LastEffects() {
				if e.Kind == core.EffSend && e.Msg != nil {
					f.Add(append([]byte{0, byte(k)}, e.Msg.AppendBinary(nil)...))
				}
			}
		}
		for r := range core.Rank(s.N()) {
			f.Add(append([]byte{1, byte(k + 8*int(r))}, s.Node(r).AppendBinary(nil)...))
			for _, e := range s.History(r) {
				if e.Kind == core.EffReturn && e.Value != nil {
					f.Add(append([]byte{2, byte(k)}, e.Value.AppendBinary(nil)...))
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		_, p, err := eventloggerModel(data[1] % 8)
		if err != nil {
			t.Fatal(err)
		}
		cfg := el.Config{Kind: p.Kind, Procs: p.Procs, F: p.F, Experimental: p.Experimental}
		if p.Kind != el.Centralized {
			cfg.Consensus = elmodel.Paxos{Retransmit: 3}
		}
		in := data[2:]
		switch data[0] % 3 {
		case 0:
			m, err := el.DecodeMessage(in, cfg)
			if err != nil {
				return
			}
			b := m.AppendBinary(nil)
			if m2, err := el.DecodeMessage(b, cfg); err != nil || !bytes.Equal(m2.AppendBinary(nil), b) {
				t.Fatalf("message %v does not round-trip: %v", m, err)
			}
		case 1:
			r := core.Rank(int(data[1]/8) % cfg.N())
			n, err := el.DecodeNode(in, r, cfg)
			if err != nil {
				return
			}
			b := n.AppendBinary(nil)
			if n2, err := el.DecodeNode(b, r, cfg); err != nil || !bytes.Equal(n2.AppendBinary(nil), b) {
				t.Fatalf("%v does not round-trip: %v", n, err)
			}
			_ = n.Recover()
			_ = n.Forget()
			last := core.Rank(cfg.N() - 1)
			for _, ev := range []core.Event{core.Call(el.Save{Det: "d"}), core.Call(el.RetrieveSince{}), core.Call(el.Start{}),
				core.Timer(1), core.Restart(), core.Suspect(last), core.Recovered(last)} {
				_, _ = n.Step(ev, nil)
			}
		case 2:
			v, err := el.DecodeValue(in)
			if err != nil {
				return
			}
			b := v.AppendBinary(nil)
			if v2, err := el.DecodeValue(b); err != nil || !bytes.Equal(v2.AppendBinary(nil), b) {
				t.Fatalf("value %v does not round-trip: %v", v, err)
			}
		}
	})
}
