package forgettest

import (
	"errors"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
)

// cell is a one-field machine whose Forget is broken in the way bad says.
type cell struct {
	v   byte
	bad string
}

func (c *cell) Step(core.Event, []core.Effect) ([]core.Effect, error) { return nil, nil }
func (c *cell) Clone() core.Machine                                   { d := *c; return &d }
func (c *cell) AppendBinary(b []byte) []byte                          { return append(b, c.v) }
func (c *cell) String() string                                        { return "cell" }
func (c *cell) Forget() core.Machine {
	switch c.bad {
	case "receiver":
		c.v++
		return &cell{bad: c.bad}
	case "idempotent":
		return &cell{v: c.v + 1, bad: c.bad}
	}
	return &cell{bad: c.bad}
}

func decodeCell(b []byte) (*cell, error) {
	if len(b) != 1 {
		return nil, errors.New("want one byte")
	}
	return &cell{v: b[0]}, nil
}

func sameCell(a, b *cell) string {
	if a.v != b.v {
		return "v differs"
	}
	return ""
}

// TestCheck: a correct Forget passes; each broken clause is reported.
func TestCheck(t *testing.T) {
	if f, err := Check(&cell{v: 7}, decodeCell, sameCell); err != nil || f.v != 0 {
		t.Fatalf("correct Forget: %v, %v", f, err)
	}
	for bad, want := range map[string]string{
		"receiver":   "changed its receiver",
		"idempotent": "not idempotent",
	} {
		if _, err := Check(&cell{v: 7, bad: bad}, decodeCell, sameCell); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want an error containing %q", bad, err, want)
		}
	}
	broken := func([]byte) (*cell, error) { return nil, errors.New("corrupt") }
	if _, err := Check(&cell{v: 7}, broken, sameCell); err == nil || !strings.Contains(err.Error(), "does not decode") {
		t.Errorf("decoder error: got %v", err)
	}
	off := func(a, b *cell) string { return "always differs" }
	if _, err := Check(&cell{v: 7}, decodeCell, off); err == nil || !strings.Contains(err.Error(), "round trip") {
		t.Errorf("round trip: got %v", err)
	}
}
