package registry

import (
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

func TestZZMeas(t *testing.T) {
	p := ERAParams{N: 4, Crashes: 3, Agreements: 1, Values: 2, Topology: era.Binary, Op: era.And}
	m, err := NewERAModel(p, AllInputVectors(p))
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var tot, n, mx int
	for i := 0; i < 200; i++ {
		w := m.Init()[r.IntN(16)]
		for {
			b := m.Encode(nil, w)
			tot += len(b); n++; mx = max(mx, len(b))
			acts := m.Actions(w, nil)
			if len(acts) == 0 { break }
			w, _ = m.Apply(w, acts[r.IntN(len(acts))])
		}
	}
	t.Logf("avg %d max %d", tot/n, mx)
	_ = checker.Action{}; _ = env.Unordered
}
