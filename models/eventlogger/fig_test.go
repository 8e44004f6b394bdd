package eventlogger

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	el "github.com/ftkernel/ftkernel/statemachine/eventlogger"
)

// TestFig54 runs the sweep under the fitted cost model and checks the
// shape of Fig. 5.4: the centralized logger saturates at the anchor it
// was fitted to, Classic at its anchor, lower, and Parallel keeps growing
// past both. EVENTLOGGER_WRITE_FIG=1 writes docs/eventlogger-fig5_4.svg
// and prints the table docs/eventlogger.md shows.
func TestFig54(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of simulations")
	}
	cost, _, _, err := Calibrate(1)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := Fig54(cost, Fig54Procs, 20000)
	if err != nil {
		t.Fatal(err)
	}
	at := func(k el.Kind, n int) DESResult {
		for _, p := range pts {
			if p.Kind == k && p.Procs == n {
				return p.DESResult
			}
		}
		t.Fatalf("no point %v %d", k, n)
		return DESResult{}
	}
	cen, cls, par := at(el.Centralized, 128), at(el.Classic, 128), at(el.Parallel, 128)
	if d := cen.Throughput - AnchorCentralized; d < -2 || d > 2 {
		t.Errorf("centralized at 128: %.1f det/ms, want its anchor %g ± 2", cen.Throughput, AnchorCentralized)
	}
	if d := cls.Throughput - AnchorClassic; d < -2 || d > 2 {
		t.Errorf("classic at 128: %.1f det/ms, want its anchor %g ± 2", cls.Throughput, AnchorClassic)
	}
	if par.Throughput < 2*at(el.Parallel, 64).Throughput*0.9 || par.Throughput < 3*cen.Throughput {
		t.Errorf("parallel does not scale: 64 → %.1f, 128 → %.1f det/ms", at(el.Parallel, 64).Throughput, par.Throughput)
	}
	if os.Getenv("EVENTLOGGER_WRITE_FIG") != "" {
		var b bytes.Buffer
		if err := WriteFig54(&b, pts, cost); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "<svg") {
			t.Fatal("not an SVG")
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "eventlogger-fig5_4.svg"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("cost %+v\n| n | centralized det/ms (lat ms) | classic | parallel |\n|---|---|---|---|\n", cost)
		for _, n := range Fig54Procs {
			c, k, p := at(el.Centralized, n), at(el.Classic, n), at(el.Parallel, n)
			fmt.Printf("| %d | %.1f (%.2f) | %.1f (%.2f) | %.1f (%.2f) |\n", n, c.Throughput, c.Latency, k.Throughput, k.Latency, p.Throughput, p.Latency)
		}
	}
}
