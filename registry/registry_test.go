package registry

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
)

// counter is a toy model: a counter that counts up to limit, one action
// per step; the invariant "below" fails at limit when bad is set.
type counter struct {
	limit int
	bad   bool
}

func (c *counter) Name() string { return fmt.Sprintf("counter limit=%d", c.limit) }
func (c *counter) Init() []int  { return []int{0} }
func (c *counter) Actions(s int, buf []checker.Action) []checker.Action {
	if s < c.limit {
		buf = append(buf, checker.Action{Kind: 1})
	}
	return buf
}
func (c *counter) Apply(s int, a checker.Action) (int, error) {
	if a.Kind != 1 || s >= c.limit {
		return s, fmt.Errorf("action %v not enabled at %d", a, s)
	}
	return s + 1, nil
}
func (c *counter) Encode(b []byte, s int) []byte           { return append(b, byte(s)) }
func (c *counter) Quiescent(s int) bool                    { return s == c.limit }
func (c *counter) Describe(s int, a checker.Action) string { return fmt.Sprintf("inc from %d", s) }
func (c *counter) Properties() []checker.Property[int] {
	return []checker.Property[int]{{Name: "below", Kind: checker.Invariant, Doc: "the counter stays below its limit (mutant only)",
		Check: func(s int) error {
			if c.bad && s == c.limit {
				return errors.New("reached the limit")
			}
			return nil
		}}}
}

func defineCounter(fs *flag.FlagSet) Builder {
	limit := fs.Int("limit", 3, "count up to this")
	mut := fs.String("mutant", "", "bad: the invariant fails at the limit")
	return func() (Runner, error) {
		if *limit < 0 || *limit > 200 {
			return nil, fmt.Errorf("--limit %d: want 0..200", *limit)
		}
		c := &counter{limit: *limit}
		switch *mut {
		case "":
		case "bad":
			c.bad = true
		default:
			return nil, ErrUnknownMutant("counter", *mut)
		}
		return Erase[int](c, "counter", FlagParams(fs)), nil
	}
}

func init() {
	Register(&Protocol{Name: "counter", Doc: "toy counter", Define: defineCounter,
		Mutants: []MutantInfo{{Name: "bad", Doc: "the invariant fails at the limit"}}})
}

// TestRegisterLookupBuild: a registered toy model is found by name, built
// from flags, explored through the erased Runner (5 states for limit 4),
// its violation replays and shrinks, and its Params rebuild it.
func TestRegisterLookupBuild(t *testing.T) {
	p, err := Lookup("counter")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lookup("nope"); err == nil || !strings.Contains(err.Error(), "counter") {
		t.Errorf("Lookup(nope) = %v, want an error listing the known models", err)
	}
	if ps, err := p.Properties(); err != nil || len(ps) != 1 || ps[0].Name != "below" || ps[0].Kind != "invariant" {
		t.Errorf("Properties = %v, %v", ps, err)
	}
	r, err := p.Build([]string{"--limit", "4"})
	if err != nil {
		t.Fatal(err)
	}
	if res := r.BFS(checker.Options{}); res.States != 5 || !res.Complete || len(res.Violations) != 0 {
		t.Fatalf("BFS: %d states, complete %v, %d violations; want 5, true, 0", res.States, res.Complete, len(res.Violations))
	}
	if _, ok := EnvModel(r); ok {
		t.Error("EnvModel of a non-env runner succeeded")
	}
	bad, err := p.Build([]string{"--limit", "4", "--mutant", "bad"})
	if err != nil {
		t.Fatal(err)
	}
	res := bad.BFS(checker.Options{})
	if len(res.Violations) != 1 || len(res.Violations[0].Steps) != 4 {
		t.Fatalf("mutant: %d violations", len(res.Violations))
	}
	tr := res.Violations[0]
	if tr.Params[ModelParam] != "counter" || tr.Params["mutant"] != "bad" {
		t.Errorf("trace params %v", tr.Params)
	}
	again, err := p.BuildParams(tr.Params)
	if err != nil {
		t.Fatal(err)
	}
	var ve *checker.ViolationError
	if err := again.Replay(tr); !errors.As(err, &ve) || ve.Violation.Property != "below" {
		t.Errorf("replay on the rebuilt model: %v", err)
	}
	if sh := again.Shrink(tr); sh == nil || len(sh.Steps) != 4 {
		t.Errorf("shrink: %v", sh)
	}
	for _, args := range [][]string{{"--limit", "-1"}, {"--mutant", "x"}, {"--bogus"}, {"extra"}} {
		if _, err := p.Build(args); err == nil {
			t.Errorf("Build(%v) succeeded", args)
		}
	}
	found := false
	for _, q := range All() {
		found = found || q.Name == "counter"
	}
	if !found {
		t.Error("All() misses counter")
	}
}

// TestRegisterDuplicatePanics: a second model of the same name is a
// start-up error.
func TestRegisterDuplicatePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("duplicate Register did not panic")
		}
	}()
	Register(&Protocol{Name: "counter", Define: defineCounter})
}

// mirrored is the counter with a symmetry: every state is its own
// canonical representative.
type mirrored struct{ counter }

func (m *mirrored) Canonical(s int) int { return s }

// TestSymmetric: a runner reports whether its model has a symmetry for
// --symmetry to use.
func TestSymmetric(t *testing.T) {
	if r := Erase[int](&counter{limit: 2}, "counter", map[string]string{}); r.Symmetric() {
		t.Error("the counter has no symmetry")
	}
	if r := Erase[int](&mirrored{counter{limit: 2}}, "counter", map[string]string{}); !r.Symmetric() {
		t.Error("a checker.Symmetric model has a symmetry")
	}
}

// TestSimWalkOptions: the options carry the context and a progress line
// that counts walks and steps.
func TestSimWalkOptions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var lines []string
	opt := SimWalkOptions(ctx, func(s string) { lines = append(lines, s) }, checker.WalkOptions{Walks: 7})
	if opt.Context != ctx || opt.Walks != 7 || opt.ProgressEvery <= 0 || opt.Progress == nil {
		t.Fatalf("%+v", opt)
	}
	opt.Progress(checker.WalkProgress{Done: 3, Walks: 7, Steps: 300, Seconds: 2})
	if len(lines) != 1 || lines[0] != "progress: 3/7 walks, 300 steps, 150 steps/s, 2.0s" {
		t.Fatalf("%q", lines)
	}
}
