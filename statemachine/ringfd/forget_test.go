package ringfd

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ftkernel/ftkernel/core"
)

// TestForget: on every state met in random runs, Forget keeps the rank and
// the Reported set (what models/ringfd's properties read of a crashed
// daemon or process), puts a daemon's other fields back to their initial
// values (New of its rank), leaves the receiver unchanged, is idempotent,
// and DecodeNode reads its encoding back to the same machine (go-cmp).
func TestForget(t *testing.T) {
	opts := cmp.AllowUnexported(Daemon{}, Process{}, Config{}, core.RankSet{})
	moved := 0
	for _, cfg := range testConfigs() {
		for rank, list := range randomStates(t, cfg, 1000, uint64(cfg.N)) {
			for _, m := range list {
				before := m.AppendBinary(nil)
				f := m.(interface{ Forget() core.Machine }).Forget()
				if !bytes.Equal(m.AppendBinary(nil), before) {
					t.Fatalf("Forget changed its receiver %v", m)
				}
				switch n := m.(type) {
				case *Daemon:
					init, err := New(rank, cfg)
					if err != nil {
						t.Fatal(err)
					}
					want := init.(*Daemon)
					want.reported = n.reported
					if d := cmp.Diff(want, f, opts); d != "" {
						t.Fatalf("Forget of %v (-initial with Reported +forgotten):\n%s", n, d)
					}
				case *Process:
					if d := cmp.Diff(n, f, opts); d != "" {
						t.Fatalf("Forget of process %v changed it:\n%s", n, d)
					}
				}
				b := f.AppendBinary(nil)
				if !bytes.Equal(b, before) {
					moved++
				}
				got, err := DecodeNode(b, rank, cfg)
				if err != nil {
					t.Fatalf("Forget of %v does not decode: %v", m, err)
				}
				if d := cmp.Diff(f, got, opts); d != "" {
					t.Fatalf("Forget of %v: round trip differs:\n%s", m, d)
				}
				if !bytes.Equal(f.(interface{ Forget() core.Machine }).Forget().AppendBinary(nil), b) {
					t.Fatalf("Forget is not idempotent on %v", m)
				}
			}
		}
	}
	if moved == 0 {
		t.Fatal("no state changed by Forget: the runs do not exercise it")
	}
}
