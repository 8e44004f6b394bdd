package fuzz

import (
	"fmt"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// FuzzDiagnosisDecode: any bytes either fail to decode as a VCube message of
// 8 nodes, with an error, or decode to a message that encodes back to the
// same bytes.
func FuzzDiagnosisDecode(f *testing.F) {
	f.Add(dg.TestRequest{S: 2}.AppendBinary(nil))
	f.Add(dg.TestReply{S: 3, TS: []uint32{0, 1, 2, 3, 0, 0, 1, 0}}.AppendBinary(nil))
	f.Add([]byte{2, 1, 8, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x1f})
	f.Fuzz(func(t *testing.T, b []byte) {
		if m, err := dg.DecodeVCubeMessage(b, 8); err == nil && string(m.AppendBinary(nil)) != string(b) {
			t.Fatalf("% x decodes to %v, which encodes differently", b, m)
		}
	})
}

// FuzzDiagnosisSchedule: every byte string is an asynchronous schedule of
// VCube over 8 nodes (no timing at all: a round's deadline may pass before
// any reply arrives). Each byte picks the next step among those enabled: a
// started node's round timer, the delivery of a message in flight, or (up
// to 3 times) a crash. Every step of a live node must be accepted, and
// whatever the order: no timestamp ever decreases (the merge takes only
// newer entries), no node diagnoses itself, a node tests in round s only
// nodes of c(i, s), and a clone encodes as the node does.
func FuzzDiagnosisSchedule(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{200, 9, 9, 9, 0, 0, 0, 0, 201, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := diagnosisSchedule(8, data); err != nil {
			t.Fatal(err)
		}
	})
}

// diagnosisSchedule runs the schedule data over n nodes and reports the
// first broken check (see FuzzDiagnosisSchedule).
func diagnosisSchedule(n int, data []byte) error {
	type inflight struct {
		from, to core.Rank
		m        core.Message
	}
	cfg := &dg.VCubeNodeConfig{N: n, Delta: 1}
	nodes := make([]*dg.VCubeNode, n)
	dead := make([]bool, n)
	crashes := 0
	var msgs []inflight
	step := func(i int, ev core.Event) error {
		v := nodes[i]
		before := v.Clone().(*dg.VCubeNode)
		eff, err := v.Step(ev, nil)
		if err != nil {
			return fmt.Errorf("p%d refused %v: %v", i, ev, err)
		}
		for k := range core.Rank(n) {
			if v.Timestamp(k) < before.Timestamp(k) {
				return fmt.Errorf("p%d: ts[%d] decreased on %v: %v → %v", i, k, ev, before, v)
			}
		}
		if v.Diagnosis().Has(core.Rank(i)) {
			return fmt.Errorf("p%d diagnoses itself: %v", i, v)
		}
		if string(v.Clone().AppendBinary(nil)) != string(v.AppendBinary(nil)) {
			return fmt.Errorf("p%d: a clone encodes differently", i)
		}
		c, _ := core.Cluster(core.Rank(i), max(v.S(), 1), n)
		for _, e := range eff {
			if e.Kind != core.EffSend {
				continue
			}
			if _, isTest := e.Msg.(dg.TestRequest); isTest && !containsRank(c, e.To) {
				return fmt.Errorf("p%d tests p%d in round s=%d, outside c(%d, %d) = %v", i, e.To, v.S(), i, v.S(), c)
			}
			msgs = append(msgs, inflight{core.Rank(i), e.To, e.Msg})
		}
		return nil
	}
	for i := range n {
		var err error
		if nodes[i], err = dg.NewVCubeNode(cfg, core.Rank(i)); err != nil {
			return err
		}
		if err := step(i, core.Call(dg.StartVCube{})); err != nil {
			return err
		}
	}
	for _, b := range data {
		// The enabled steps: every live node's timer, every message in
		// flight, a crash of a live node while the budget lasts.
		var live []int
		for i := range n {
			if !dead[i] {
				live = append(live, i)
			}
		}
		k := int(b) % (len(live) + len(msgs) + 1)
		switch {
		case k < len(live):
			if err := step(live[k], core.Timer(1)); err != nil {
				return err
			}
		case k < len(live)+len(msgs):
			m := msgs[k-len(live)]
			msgs = append(msgs[:k-len(live)], msgs[k-len(live)+1:]...)
			if !dead[m.to] {
				if err := step(int(m.to), core.Receive(m.from, m.m)); err != nil {
					return err
				}
			}
		case crashes < 3 && len(live) > 1:
			dead[live[int(b)%len(live)]] = true
			crashes++
		}
	}
	return nil
}

func containsRank(rs []core.Rank, r core.Rank) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}
