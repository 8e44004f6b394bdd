package gossipfd

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// TestFig12SVG draws a small figure and checks it is an SVG with both
// variants' series. With GOSSIPFD_WRITE_DOCS=1 it writes the full figure
// and its data to docs/ (as `docs/gossipfd.md` says).
func TestFig12SVG(t *testing.T) {
	f := WeibullF(0.1, 1)
	exactUpTo, mc, trials := 8, []int{12}, int64(20000)
	if os.Getenv("GOSSIPFD_WRITE_DOCS") == "1" {
		exactUpTo, mc, trials = 20, []int{24, 32, 48, 64, 96, 128, 192, 256}, 200000
	}
	rows, err := Fig12(f, exactUpTo, mc, trials, 1)
	if err != nil {
		t.Fatal(err)
	}
	svg, err := Fig12SVG(rows, f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "brr A (cut), exact", "dbrr B (not strongly connected), exact", "P_app"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("figure lacks %q", want)
		}
	}
	if os.Getenv("GOSSIPFD_WRITE_DOCS") == "1" {
		data, _ := json.MarshalIndent(rows, "", " ")
		if err := os.WriteFile("../../docs/gossipfd-fig12.svg", svg, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("../../docs/gossipfd-fig12.json", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
