package checker

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTraceFileRoundTrip(t *testing.T) {
	r := BFS[pt](&grid{N: 4, props: []Property[pt]{sumBelow(2)}}, Options{Workers: 1})
	tr := r.Violations[0]
	seed := uint64(9)
	tr.Seed = &seed
	tr.Params = map[string]string{"n": "4", "a": "x"}
	path := filepath.Join(t.TempDir(), "t.json")
	if err := tr.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTraceFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(tr, got); d != "" {
		t.Fatalf("round trip (-want +got):\n%s", d)
	}
	want := "model: grid n=4\nparams: a=x n=4\nseed: 9\ninit: 0\n" +
		"  1. incX at (0,0)\n  2. incX at (1,0)\n" +
		"violated: invariant SumBelow violated after step 2: x+y=2\n"
	if s := got.String(); s != want {
		t.Fatalf("printed:\n%s\nwant:\n%s", s, want)
	}
}

func TestParseTraceRejects(t *testing.T) {
	for _, in := range []string{
		`{"model":"m","init":-1,"steps":[]}`,
		`{"model":"m","init":0,"steps":[],"violation":{"property":"p","kind":"invariant","message":"","steps":1}}`,
		`{"model":"m","init":0,"steps":[],"extra":1}`,
		`{"model":"m"} {}`,
		`not json`,
	} {
		if _, err := ParseTrace([]byte(in)); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
	if _, err := ReadTraceFile(filepath.Join(t.TempDir(), "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestReplay(t *testing.T) {
	g := &grid{N: 3, props: []Property[pt]{sumBelow(3)}}
	r := BFS[pt](g, Options{})
	tr := r.Violations[0]
	states, err := Replay[pt](g, tr)
	if !isViolation(err, tr.Violation) {
		t.Fatalf("replay: %v", err)
	}
	if !reflect.DeepEqual(states, []pt{{0, 0}, {1, 0}, {2, 0}, {3, 0}}) {
		t.Fatalf("states %v", states)
	}
	// Without a violation every default property is checked: none fails on
	// a short path.
	ok := &Trace{Model: g.Name(), Steps: []Step{{Action: Action{Kind: incY}}}}
	if states, err := Replay[pt](g, ok); err != nil || len(states) != 2 || states[1] != (pt{0, 1}) {
		t.Fatalf("states=%v err=%v", states, err)
	}
	// An action that is not enabled.
	bad := &Trace{Steps: []Step{{Action: Action{Kind: incX}}, {Action: Action{Kind: incX}}, {Action: Action{Kind: incX}}, {Action: Action{Kind: incX}}}}
	_, err = Replay[pt](&grid{N: 3}, bad)
	var se *StepError
	if !errors.As(err, &se) || se.Step != 4 || !errors.Is(err, ErrNotEnabled) {
		t.Fatalf("err %v", err)
	}
	if _, err := Replay[pt](g, &Trace{Init: 1}); err == nil {
		t.Fatal("bad init accepted")
	}
}

func TestShrink(t *testing.T) {
	d := door{}
	noise, unlock, open := Action{Kind: 3}, Action{Kind: 1}, Action{Kind: 2}
	acts := []Action{noise, unlock, noise, noise, open, noise}
	tr := &Trace{Model: "door", Params: map[string]string{"k": "v"}, Steps: make([]Step, len(acts)),
		Violation: &Violation{Property: "Closed", Kind: "invariant", Message: "door open", Steps: 5}}
	for i, a := range acts {
		tr.Steps[i].Action = a
	}
	out := Shrink[int](d, tr)
	if got := actionKinds(out); !reflect.DeepEqual(got, []uint8{1, 2}) {
		t.Fatalf("shrunk to %v, want [unlock open]", got)
	}
	want := &Violation{Property: "Closed", Kind: "invariant", Message: "door open", Steps: 2}
	if !reflect.DeepEqual(out.Violation, want) || out.Steps[1].Text != "open" || out.Params["k"] != "v" {
		t.Fatalf("trace %v", out)
	}
	if _, err := Replay[int](d, out); !isViolation(err, want) {
		t.Fatalf("replay %v", err)
	}
	// A walk trace shrinks to the BFS length, 1-minimal.
	g := &grid{N: 8, props: []Property[pt]{{Name: "XBelow", Kind: Invariant, Check: func(s pt) error {
		if s.X >= 3 {
			return errors.New("x=3")
		}
		return nil
	}}}}
	w := Walk[pt](g, WalkOptions{Seed: 3})
	before := len(w.Violation.Steps)
	s := Shrink[pt](g, w.Violation)
	if got := actionKinds(s); !reflect.DeepEqual(got, []uint8{1, 1, 1}) || before <= 3 || s.Seed != nil {
		t.Fatalf("before %d after %v", before, got)
	}
	// A trace that does not reproduce is returned unchanged.
	if Shrink[int](d, &Trace{Violation: &Violation{Property: "Closed", Steps: 0}}) == nil {
		t.Fatal("nil")
	}
}
