package diagnosis

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCurves measures latency and tests per round of the three algorithms against n (n ≤ 64 by
// default, 20 random fault sets each; with FTKERNEL_LONG=1 also n = 128 … 1024, 4 random fault
// sets each), prints the table of docs/diagnosis.md, and checks
// the bounds that the thesis states: Adaptive-DSD's latency ≤ n and n tests per round (n − 1
// with one fault-free node), Hi-ADSD's latency ≤ (log2 n)², VCube's ≤ n tests per round once
// converged. DIAGNOSIS_WRITE_FIG=1 writes docs/diagnosis-latency.svg and docs/diagnosis-tests.svg.
func TestCurves(t *testing.T) {
	runs := []struct {
		ns      []int
		samples int
	}{{[]int{2, 4, 8, 16, 32, 64}, 20}}
	if os.Getenv("FTKERNEL_LONG") == "1" {
		runs = append(runs, struct {
			ns      []int
			samples int
		}{[]int{128, 256, 512, 1024}, 4})
	}
	var all []CurvePoint
	var b strings.Builder
	fmt.Fprintf(&b, "| algorithm | n | fault sets | latency (rounds) | tests per round | worst latency set | worst tests set |\n|---|---|---|---|---|---|---|\n")
	for _, alg := range []string{ADSD, HiADSD, VCube} {
		var pts []CurvePoint
		for _, r := range runs {
			p, err := Curves(alg, r.ns, r.samples, 1)
			if err != nil {
				t.Fatal(err)
			}
			pts = append(pts, p...)
		}
		for _, q := range pts {
			if q.Family == "worst" {
				if alg == ADSD && q.LatencyRounds > float64(q.N) || alg == HiADSD && q.LatencyRounds > Bound(alg, "latency", q.N) ||
					alg != HiADSD && q.TestsPerRound > float64(q.N) {
					t.Errorf("%s n=%d: latency %v, tests per round %v past the bound", alg, q.N, q.LatencyRounds, q.TestsPerRound)
				}
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %.1f | %.1f | %s | %s |\n", alg, q.N, q.Family, q.LatencyRounds, q.TestsPerRound,
				short(q.WorstLatencySet), short(q.WorstTestsSet))
		}
		all = append(all, pts...)
	}
	t.Log("\n" + b.String())
	if os.Getenv("DIAGNOSIS_WRITE_FIG") == "1" {
		for _, what := range []string{"latency", "tests"} {
			var svg bytes.Buffer
			if err := WriteCurves(&svg, all, what); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join("..", "..", "docs", "diagnosis-"+what+".svg"), svg.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func short(f any) string {
	s := fmt.Sprint(f)
	if s == "[]" {
		return ""
	}
	if len(s) > 40 {
		return s[:37] + "…]"
	}
	return s
}
