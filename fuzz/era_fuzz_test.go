package fuzz

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// FTKERNEL_FUZZ_MUTANT selects the ERA variant FuzzERASchedule runs: the
// correct protocol unless it names a mutant (era.Mutants), e.g.
//
//	FTKERNEL_FUZZ_MUTANT=no-mark-elders go test -run XXX -fuzz FuzzERASchedule ./fuzz
//
// It is read in the test body, not at package init, so that go test's
// result cache takes it into account.
const fuzzMutantEnv = "FTKERNEL_FUZZ_MUTANT"

// FuzzERASchedule lets the fuzzer choose the schedule of an N=4 ERA
// environment (crash budget 2, both flag values): see decodeSchedule for
// the byte layout. Every property is checked along the run.
func FuzzERASchedule(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	mut := mutantFromEnv(f, fuzzMutantEnv)
	f.Fuzz(func(t *testing.T, data []byte) {
		runAndCheck(t, data, mut)
	})
}

// Decode targets, chosen by data[0] % 4 (the rest is the payload):
//
//	0  era.DecodeMessage with era.And values
//	1  era.DecodeMessage with era.ULFM values
//	2  era.DecodeNode: data[1] gives N = 1 + data[1] % 16, data[2] the rank
//	   p = data[2] % N; data[0] >> 2 the topology (mod 3), bit 4 the ULFM
//	   op and bit 5 GC; the node encoding starts at data[3]
//	3  checker.ParseTrace on the JSON text
const (
	decodeMsgAnd = iota
	decodeMsgULFM
	decodeNode
	decodeTrace
)

// FuzzERADecode feeds arbitrary bytes to the ERA decoders and the trace
// parser: malformed input must give an error, never a panic, and whatever
// decodes must re-encode to the same bytes (a trace: parse, marshal and
// parse again to the same value). A decoded node must also survive a
// failure report for every peer and a RESULTREQUEST, the events a runtime
// may feed it, without panicking.
func FuzzERADecode(f *testing.F) {
	f.Add([]byte{decodeMsgAnd, 1, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		sel, payload := data[0], data[1:]
		switch sel % 4 {
		case decodeMsgAnd, decodeMsgULFM:
			op := era.And
			if sel%4 == decodeMsgULFM {
				op = era.ULFM
			}
			m, err := era.DecodeMessage(payload, op)
			if err != nil {
				return
			}
			if got := m.AppendBinary(nil); !bytes.Equal(got, payload) {
				t.Fatalf("%s message %v decoded from %x re-encodes to %x", op.Name(), m, payload, got)
			}
			_ = m.String()
		case decodeNode:
			if len(data) < 3 {
				return
			}
			n := 1 + int(data[1])%16
			p := core.Rank(int(data[2]) % n)
			cfg := era.Config{N: n, Topology: era.Topology((sel >> 2) % 3), GC: sel&(1<<5) != 0}
			if sel&(1<<4) != 0 {
				cfg.Op = era.ULFM
			}
			enc := data[3:]
			node, err := era.DecodeNode(enc, p, cfg)
			if err != nil {
				return
			}
			if got := node.AppendBinary(nil); !bytes.Equal(got, enc) {
				t.Fatalf("node %v (p=%v cfg=%+v) decoded from %x re-encodes to %x", node, p, cfg, enc, got)
			}
			_ = node.String()
			var a uint64
			if ags := node.Agreements(); len(ags) > 0 {
				a = ags[0]
			}
			for q := core.Rank(0); int(q) < n; q++ {
				c := node.Clone()
				_, _ = c.Step(core.Suspect(q), nil)
				if q != p {
					c = node.Clone()
					_, _ = c.Step(core.Receive(q, era.ResultRequest{A: a}), nil)
				}
			}
		case decodeTrace:
			tr, err := checker.ParseTrace(payload)
			if err != nil {
				return
			}
			b, err := json.Marshal(tr)
			if err != nil {
				t.Fatalf("parsed trace does not marshal: %v", err)
			}
			tr2, err := checker.ParseTrace(b)
			if err != nil {
				t.Fatalf("marshalled trace %s does not parse: %v", b, err)
			}
			if diff := cmp.Diff(tr, tr2); diff != "" {
				t.Fatalf("trace round trip differs (-first +second):\n%s", diff)
			}
			_ = tr.String()
		}
	})
}
