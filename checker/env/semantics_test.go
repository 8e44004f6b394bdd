package env

import (
	"errors"
	"testing"
)

// u8 adapts a typed Parse function to one signature for the table below.
func u8[T ~uint8](parse func(string) (T, error)) func(string) (uint8, error) {
	return func(s string) (uint8, error) { v, err := parse(s); return uint8(v), err }
}

// TestSemanticsParseString: every named mode parses back from its String
// to its own value, names are distinct, an unnamed value prints its number,
// and an unknown name is an ErrConfig.
func TestSemanticsParseString(t *testing.T) {
	cases := []struct {
		kind    string
		values  []string // String() of values 0, 1, ...
		parse   func(string) (uint8, error)
		unnamed string
	}{
		{"network", []string{Unordered.String(), FIFO.String()}, u8(ParseNetwork), Network(9).String()},
		{"loss", []string{LossNone.String(), LossOnCrash.String()}, u8(ParseLoss), Loss(9).String()},
		{"faults", []string{CrashStop.String()}, u8(ParseFaults), Faults(9).String()},
		{"detector", []string{DetectorPerfect.String(), DetectorNone.String()}, u8(ParseDetector), Detector(9).String()},
		{"timing", []string{Asynchronous.String(), LockStepRounds.String()}, u8(ParseTiming), Timing(9).String()},
	}
	for _, c := range cases {
		seen := map[string]bool{}
		for i, s := range c.values {
			if seen[s] {
				t.Errorf("%s: name %q used twice", c.kind, s)
			}
			seen[s] = true
			v, err := c.parse(s)
			if err != nil || int(v) != i {
				t.Errorf("%s: parse(%q) = %d, %v; want %d", c.kind, s, v, err, i)
			}
		}
		if want := c.kind + "(9)"; c.unnamed != want {
			t.Errorf("unnamed %s = %q, want %q", c.kind, c.unnamed, want)
		}
		if _, err := c.parse("bogus"); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: parse(bogus) error = %v, want ErrConfig", c.kind, err)
		}
	}
	if FIFO.String() != "fifo" || Unordered.String() != "unordered" {
		t.Errorf("network names changed: %v %v (printed in model names and flags)", FIFO, Unordered)
	}
}
