package hyperquicksort

import (
	"encoding/json"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// TestSection422WorkedExample: the thesis's worked example (§4.2.2, N = 8,
// first sorting round s = 3) through `simulate`: p4 non-recommended gives
// p0 the partner p5, which substitutes p4; p4 and p5 out make p6 p4's
// substitute; p2 out gives p6 the partner p3, p2's substitute, which also
// exchanges with p7. Each run sorts the whole input.
func TestSection422WorkedExample(t *testing.T) {
	for _, c := range []struct {
		nonRec     core.RankSet
		i, partner core.Rank // partner of i at s = 3
		r, sub     core.Rank // substitute of r
		also, with core.Rank // also's own partner at s = 3
	}{
		{set(4), 0, 5, 4, 5, 1, 5},
		{set(4, 5), 0, 6, 4, 6, 1, 7},
		{set(2), 6, 3, 2, 3, 3, 7},
	} {
		res, err := Simulate(SimParams{N: 8, Values: 2, NonRec: c.nonRec})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.Partners[0][c.i]; got != c.partner {
			t.Errorf("%v: partner(%d, 3) = %v, want %v", c.nonRec, c.i, got, c.partner)
		}
		if got := res.Partners[0][c.also]; got != c.with {
			t.Errorf("%v: partner(%d, 3) = %v, want %v", c.nonRec, c.also, got, c.with)
		}
		if got := res.Substitutes[c.r]; got != c.sub {
			t.Errorf("%v: substitute(%d) = %v, want %v", c.nonRec, c.r, got, c.sub)
		}
		if !res.Sorted || !res.Complete {
			t.Errorf("%v: sorted %v, complete %v: %v", c.nonRec, res.Sorted, res.Complete, res.Output)
		}
	}
}

// TestSimulateJSON: the figures carry partners per round (s from log2 n
// down), null for a recommended rank without one, substitutes and sorted.
func TestSimulateJSON(t *testing.T) {
	res, err := Simulate(SimParams{N: 8, Values: 2, NonRec: set(4, 5, 6, 7)})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Figures())
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Partners []struct {
			S       int             `json:"s"`
			Partner map[string]*int `json:"partner"`
		} `json:"partners"`
		Substitutes map[string]*int `json:"substitutes"`
		Sorted      bool            `json:"sorted"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Partners) != 3 || f.Partners[0].S != 3 || f.Partners[2].S != 1 {
		t.Fatalf("partners %s", b)
	}
	if p, ok := f.Partners[0].Partner["0"]; !ok || p != nil {
		t.Errorf("s=3: rank 0's partner %v (present %v), want null", p, ok)
	}
	if _, ok := f.Partners[0].Partner["4"]; ok {
		t.Errorf("s=3: non-recommended rank 4 has a partner entry")
	}
	if p := f.Partners[1].Partner["0"]; p == nil || *p != 2 {
		t.Errorf("s=2: rank 0's partner %v, want 2", p)
	}
	if s := f.Substitutes["5"]; s == nil || *s != 1 {
		t.Errorf("substitute of 5 = %v, want 1", s)
	}
	if !f.Sorted {
		t.Errorf("not sorted: %s", b)
	}
}

// TestULFMLoses: with p4 failed before the first round, the ULFM
// baseline's output is sorted and is the input less p4's share; the DGRP
// loses nothing.
func TestULFMLoses(t *testing.T) {
	u, err := Simulate(SimParams{N: 8, Values: 2, NonRec: set(4), Baseline: ULFM})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Simulate(SimParams{N: 8, Values: 2, NonRec: set(4)})
	if err != nil {
		t.Fatal(err)
	}
	share := Params{N: 8, Values: 2}.Input(0)[4]
	if !u.Sorted || u.Complete || len(u.Lost) != 2 || u.Lost[0] != min(share[0], share[1]) || u.Lost[1] != max(share[0], share[1]) {
		t.Errorf("ulfm: sorted %v complete %v lost %v, want p4's share %v lost", u.Sorted, u.Complete, u.Lost, share)
	}
	if !d.Sorted || !d.Complete || len(d.Lost) != 0 {
		t.Errorf("dgrp: sorted %v complete %v lost %v", d.Sorted, d.Complete, d.Lost)
	}
	if u.Stats.Agreements < 1 {
		t.Errorf("ulfm: %v agreements at the barrier", u.Stats.Agreements)
	}
}
