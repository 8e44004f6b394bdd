package conformance

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// RingfdStep is one Go step of a ringfd walk as the spec action that must
// match it (e.g. "Crash(1)", "RecvFault({ kind: ... })") and the Go state
// after it.
type RingfdStep struct {
	Action string
	After  RingfdState
}

// RingfdWalk is a random walk of the Go daemons under ringfd.qnt's
// abstraction, from the initial state.
type RingfdWalk struct {
	N, F  int
	Start RingfdState
	Steps []RingfdStep
}

// ringfdQuintMsg is the Quint record of a message key.
func ringfdQuintMsg(key string) string {
	var kind string
	var src, dst int
	var ids string
	// key: "KIND src->dst {ids}"
	if _, err := fmt.Sscanf(key, "%s %d->%d %s", &kind, &src, &dst, &ids); err != nil {
		panic(fmt.Sprintf("bad message key %q: %v", key, err))
	}
	return fmt.Sprintf("{ kind: %q, src: %d, dst: %d, ids: Set(%s) }", kind, src, dst, strings.Trim(ids, "{}"))
}

// WalkRingfd runs the N Go daemons with seed: at each step it picks
// uniformly among the events ringfd.qnt allows (a crash while fewer than F
// daemons crashed; the observation timer of a live daemon whose
// predecessor crashed; the delivery of a message in flight to a live
// daemon, or its loss when the receiver crashed), until none is left.
func WalkRingfd(n, f int, seed uint64) (*RingfdWalk, error) {
	w, err := newRingfdWorld(n, "")
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x7269_6e67))
	out := &RingfdWalk{N: n, F: f, Start: w.state()}
	for len(out.Steps) < 1000 {
		type choice struct {
			action string
			do     func() error
		}
		var cs []choice
		for d := 0; d < n; d++ {
			if w.crashed[d] {
				continue
			}
			if len(w.state().Crashed) < f {
				cs = append(cs, choice{fmt.Sprintf("Crash(%d)", d), func() error { w.crashed[d] = true; return nil }})
			}
			if p := w.ds[d].Pred(); p != core.NoRank && w.crashed[int(p)] {
				cs = append(cs, choice{fmt.Sprintf("Timeout(%d)", d), func() error { return w.step(d, core.Timer(ringfd.TimerObserve)) }})
			}
		}
		keys := make([]string, 0, len(w.flight))
		for k := range w.flight {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			st := map[string]any{}
			var act string
			var kind string
			var src, dst int
			fmt.Sscanf(k, "%s %d->%d", &kind, &src, &dst)
			switch {
			case w.crashed[dst]:
				act = "DropToCrashed"
			case kind == "FAULT":
				act = "RecvFault"
			default:
				act = "RecvHBRequest"
			}
			m, err := decodeQuintMsg(k)
			if err != nil {
				return nil, err
			}
			st["mbt::nondetPicks"] = map[string]any{"m": map[string]any{"tag": "Some", "value": m}}
			cs = append(cs, choice{fmt.Sprintf("%s(%s)", act, ringfdQuintMsg(k)), func() error { return w.apply(act, st) }})
		}
		if len(cs) == 0 {
			return out, nil
		}
		c := cs[rng.IntN(len(cs))]
		if err := c.do(); err != nil {
			return nil, fmt.Errorf("walk seed %d, step %d (%s): %w", seed, len(out.Steps)+1, c.action, err)
		}
		out.Steps = append(out.Steps, RingfdStep{Action: c.action, After: w.state()})
	}
	return nil, fmt.Errorf("walk seed %d: no quiescence after 1000 steps", seed)
}

// decodeQuintMsg is a message key as the decoded ITF record apply reads.
func decodeQuintMsg(key string) (map[string]any, error) {
	var kind, ids string
	var src, dst int
	if _, err := fmt.Sscanf(key, "%s %d->%d %s", &kind, &src, &dst, &ids); err != nil {
		return nil, fmt.Errorf("bad message key %q: %w", key, err)
	}
	var l []any
	for _, s := range strings.Split(strings.Trim(ids, "{}"), ",") {
		if s == "" {
			continue
		}
		var r int
		if _, err := fmt.Sscan(s, &r); err != nil {
			return nil, fmt.Errorf("bad message key %q: %w", key, err)
		}
		l = append(l, r)
	}
	if l == nil {
		l = []any{}
	}
	return map[string]any{"kind": kind, "src": src, "dst": dst, "ids": l}, nil
}

// quintState is the Quint expression "the spec state equals s".
func (s RingfdState) quintState() string {
	ints := func(xs []int) string {
		p := make([]string, len(xs))
		for i, x := range xs {
			p[i] = fmt.Sprint(x)
		}
		return strings.Join(p, ", ")
	}
	perD := func(f func(d int) string) string {
		p := make([]string, len(s.Pred))
		for d := range s.Pred {
			p[d] = fmt.Sprintf("%d -> %s", d, f(d))
		}
		return "Map(" + strings.Join(p, ", ") + ")"
	}
	msgs := make([]string, len(s.Msgs))
	for i, k := range s.Msgs {
		msgs[i] = ringfdQuintMsg(k)
	}
	return fmt.Sprintf("crashed == Set(%s) and pred == %s and obs == %s and reported == %s and msgs == Set(%s) and msgs.size() == %d",
		ints(s.Crashed),
		perD(func(d int) string { return fmt.Sprint(s.Pred[d]) }),
		perD(func(d int) string { return fmt.Sprint(s.Obs[d]) }),
		perD(func(d int) string { return "Set(" + ints(s.Reported[d]) + ")" }),
		strings.Join(msgs, ", "), len(s.Msgs))
}

// QuintRun is a Quint run test: init, then each Go step's spec action with
// .expect of the Go state after it.
func (g *RingfdWalk) QuintRun(name string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  run %s =\n    init\n      .expect(%s)\n", name, g.Start.quintState())
	for _, st := range g.Steps {
		fmt.Fprintf(&b, "      .then(%s)\n      .expect(%s)\n", st.Action, st.After.quintState())
	}
	return b.String()
}

// RingfdQuintModule is a test module importing ringfd.qnt (from
// importPath, e.g. "./ringfd") at N, F with the given runs.
func RingfdQuintModule(module, importPath string, n, f int, dists []int, runs ...string) string {
	d := make([]string, len(dists))
	for i, x := range dists {
		d[i] = fmt.Sprint(x)
	}
	return fmt.Sprintf("// generated by tla/conformance (Go walks of statemachine/ringfd)\nmodule %s {\n  import ringfd(N = %d, F = %d, DISTS = Set(%s), VARIANT = \"\").* from %q\n\n%s}\n",
		module, n, f, strings.Join(d, ", "), importPath, strings.Join(runs, "\n"))
}
