package abcast_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/models/abcast"
)

// TestFigA4SVG draws Fig. A.4 by simulation (seed 1). ABCAST_WRITE_FIG=1
// writes docs/abcast-figA4.svg.
func TestFigA4SVG(t *testing.T) {
	res, err := abcast.FigA4(1)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := abcast.WriteFigA4(&b, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "<svg") {
		t.Fatal("not an SVG")
	}
	if os.Getenv("ABCAST_WRITE_FIG") != "" {
		if err := os.WriteFile(filepath.Join("..", "..", "docs", "abcast-figA4.svg"), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
