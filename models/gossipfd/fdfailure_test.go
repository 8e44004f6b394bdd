package gossipfd

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

var paperF = WeibullF(0.1, 1) // δ = 1, λt = 10^-1

// bruteFD is an independent reference for small n: edges straight from
// Dest, reachability by Floyd–Warshall closure, crash sets by enumeration.
func bruteFD(v fd.Variant, n int, f float64) (pa, pb float64) {
	edge := make([][]bool, n)
	for s := range n {
		edge[s] = make([]bool, n)
		for r := 1; r <= fd.Cycle(v, n); r++ {
			if d := fd.Dest(v, n, core.Rank(s), r); int(d) != s {
				edge[s][d] = true
			}
		}
	}
	for mask := 0; mask < 1<<n; mask++ {
		alive := func(x int) bool { return mask&(1<<x) == 0 }
		var live []int
		for x := range n {
			if alive(x) {
				live = append(live, x)
			}
		}
		if len(live) < 2 {
			continue
		}
		a := false
		for _, d := range live {
			src := false
			for s := range n {
				if edge[s][d] && alive(s) {
					src = true
				}
			}
			if !src {
				a = true
			}
		}
		reach := make([][]bool, n)
		for s := range n {
			reach[s] = make([]bool, n)
			for d := range n {
				reach[s][d] = s == d || edge[s][d] && alive(s) && alive(d)
			}
		}
		for k := range n {
			for i := range n {
				for j := range n {
					if reach[i][k] && reach[k][j] && alive(k) {
						reach[i][j] = true
					}
				}
			}
		}
		b := false
		for _, i := range live {
			for _, j := range live {
				if !reach[i][j] {
					b = true
				}
			}
		}
		k := n - len(live)
		p := math.Pow(f, float64(k)) * math.Pow(1-f, float64(n-k))
		if a {
			pa += p
		}
		if b {
			pb += p
		}
	}
	return pa, pb
}

func close(a, b float64) bool { return math.Abs(a-b) <= 1e-12+1e-9*math.Abs(b) }

func TestFDFailureExactMatchesBruteForce(t *testing.T) {
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		for n := 2; n <= 10; n++ {
			got, err := FDFailureExact(v, n, paperF)
			if err != nil {
				t.Fatal(err)
			}
			pa, pb := bruteFD(v, n, paperF)
			if !close(got.PCut, pa) || !close(got.PDisconnected, pb) {
				t.Errorf("%v n=%d: exact A=%g B=%g, brute force A=%g B=%g", v, n, got.PCut, got.PDisconnected, pa, pb)
			}
			if got.PCut > got.PDisconnected {
				t.Errorf("%v n=%d: reading A %g above B %g (A implies B)", v, n, got.PCut, got.PDisconnected)
			}
		}
	}
}

// TestFDFailureBRRFourNodes: the paper's example, two failures (0 and 1)
// cut node 2 off, and no single failure does.
func TestFDFailureBRRFourNodes(t *testing.T) {
	r, err := FDFailureExact(fd.BRR, 4, paperF)
	if err != nil {
		t.Fatal(err)
	}
	if r.MinFailedCut != 2 {
		t.Errorf("BRR n=4: fewest failures for a cut %d, want 2", r.MinFailedCut)
	}
}

// TestMonteCarloWithinExact: the Monte Carlo estimate's 99.9 % Wilson
// interval contains the exact value (both variants, both readings).
func TestMonteCarloWithinExact(t *testing.T) {
	const z999 = 3.2905267314919255
	for _, v := range []fd.Variant{fd.BRR, fd.DBRR} {
		for _, n := range []int{4, 8, 12, 16} {
			ex, err := FDFailureExact(v, n, paperF)
			if err != nil {
				t.Fatal(err)
			}
			mc, err := FDFailureMonteCarlo(v, n, paperF, 200000, uint64(n))
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name  string
				x     int64
				exact float64
			}{{"A", mc.CutEvents, ex.PCut}, {"B", mc.DisconnectedEvents, ex.PDisconnected}} {
				lo, hi := Wilson(c.x, mc.Trials, z999)
				if c.exact < lo || c.exact > hi {
					t.Errorf("%v n=%d reading %s: exact %g outside [%g, %g] (%d/%d)", v, n, c.name, c.exact, lo, hi, c.x, mc.Trials)
				}
			}
		}
	}
}

func TestBonferroniBracketsExact(t *testing.T) {
	for _, v := range []fd.Variant{fd.BRR, fd.DBRR} {
		for n := 2; n <= 16; n++ {
			ex, _ := FDFailureExact(v, n, paperF)
			if b := ex.PCutBounds; ex.PCut < b[0]-1e-15 || ex.PCut > b[1]+1e-15 {
				t.Errorf("%v n=%d: exact %g outside Bonferroni [%g, %g]", v, n, ex.PCut, b[0], b[1])
			}
		}
	}
}

func TestWilsonAtZero(t *testing.T) {
	lo, hi := Wilson(0, 100, Z95)
	if want := Z95 * Z95 / (100 + Z95*Z95); lo != 0 || math.Abs(hi-want) > 1e-12 {
		t.Errorf("Wilson(0, 100) = [%g, %g], want [0, %g]", lo, hi, want)
	}
	if math.Abs(paperF-0.0951625819640404) > 1e-15 {
		t.Errorf("f = %v", paperF)
	}
}

func TestFDFailureRejects(t *testing.T) {
	if _, err := FDFailureExact(fd.Random, 4, 0.1); err == nil {
		t.Error("random accepted")
	}
	if _, err := FDFailureExact(fd.BRR, 30, 0.1); err == nil {
		t.Error("exact n = 30 accepted")
	}
	if _, err := FDFailureMonteCarlo(fd.BRR, 8, 1.5, 10, 1); err == nil {
		t.Error("f = 1.5 accepted")
	}
	if _, err := FDFailureMonteCarlo(fd.BRR, 8, 0.1, 0, 1); err == nil {
		t.Error("0 trials accepted")
	}
}

// refClassify is readings A and B from the neighbour lists, host by host.
func refClassify(g *Graph, alive []bool) (a, b bool) {
	var live []int
	for x, ok := range alive {
		if ok {
			live = append(live, x)
		}
	}
	if len(live) < 2 {
		return false, false
	}
	for _, d := range live {
		src := false
		for _, s := range g.In[d] {
			src = src || alive[s]
		}
		a = a || !src
	}
	for _, adj := range [][][]core.Rank{g.Out, g.In} {
		seen := map[int]bool{live[0]: true}
		stack := []int{live[0]}
		for len(stack) > 0 {
			x := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, y := range adj[x] {
				if alive[y] && !seen[int(y)] {
					seen[int(y)] = true
					stack = append(stack, int(y))
				}
			}
		}
		b = b || len(seen) != len(live)
	}
	return a, b
}

// TestClassifyMultiword: the bit-set classification agrees with the
// reference on random live sets, over word boundaries.
func TestClassifyMultiword(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, v := range []fd.Variant{fd.RR, fd.BRR, fd.DBRR} {
		for _, n := range []int{5, 63, 64, 65, 100, 130, 256} {
			g, _ := NewGraph(v, n)
			w := (n + 63) / 64
			live, r, fr, nx := make([]uint64, w), make([]uint64, w), make([]uint64, w), make([]uint64, w)
			for range 400 {
				q := []float64{0.05, 0.3, 0.6, 0.9}[rng.IntN(4)]
				alive := make([]bool, n)
				clear(live)
				for x := range n {
					if rng.Float64() >= q {
						alive[x] = true
						live[x/64] |= 1 << (x % 64)
					}
				}
				a, b := g.classify(live, r, fr, nx)
				ra, rb := refClassify(g, alive)
				if a != ra || b != rb {
					t.Fatalf("%v n=%d: classify (%v, %v), reference (%v, %v)", v, n, a, b, ra, rb)
				}
			}
		}
	}
}
