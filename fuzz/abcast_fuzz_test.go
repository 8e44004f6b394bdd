package fuzz

import (
	"testing"

	abmodel "github.com/ftkernel/ftkernel/models/abcast"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// FuzzAbcastDecode: any bytes given to the abcast decoders (messages of
// each variant, the consensus variant's Paxos messages, member states) are
// refused with an error or decode to a value whose encoding decodes back
// to the same encoding (the decoder accepts non-minimal varints); never a
// panic.
func FuzzAbcastDecode(f *testing.F) {
	cfgs := []ab.Config{
		abmodel.Params{Variant: ab.ConsensusBased, Core: 3, Messages: 2, K: 2}.Config(),
		abmodel.Params{Variant: ab.UB, Core: 4, Messages: 2}.Config(),
		abmodel.Params{Variant: ab.BB, Core: 3, Messages: 1}.Config(),
	}
	f.Add(uint8(0), ab.Decision{Inst: 1, Batch: []ab.ID{{Origin: 1}, {Origin: 2, Seq: 1}}}.AppendBinary(nil))
	f.Add(uint8(1), ab.Seq{Num: 3, ID: ab.ID{Origin: 3, Seq: 1}, Payload: true}.AppendBinary(nil))
	f.Add(uint8(2), ab.Msg{ID: ab.ID{Origin: 0}, Num: 0}.AppendBinary(nil))
	n, _ := ab.New(1, cfgs[0])
	f.Add(uint8(3), n.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		cfg := cfgs[int(which)%len(cfgs)]
		if m, err := ab.DecodeAny(b, cfg); err == nil {
			enc := m.AppendBinary(nil)
			if m2, err := ab.DecodeAny(enc, cfg); err != nil || string(m2.AppendBinary(nil)) != string(enc) {
				t.Fatalf("message %v does not round-trip: %v", m, err)
			}
		}
		if nd, err := ab.DecodeNode(b, 1, cfg); err == nil {
			enc := nd.AppendBinary(nil)
			if n2, err := ab.DecodeNode(enc, 1, cfg); err != nil || string(n2.AppendBinary(nil)) != string(enc) {
				t.Fatalf("node %v does not round-trip: %v", nd, err)
			}
		}
	})
}
