package envtest

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
)

// ForgetSample says which worlds CheckForgetContract compares: the first
// States distinct worlds (by encoding) of a breadth-first search of the
// plain model (0: none; a larger state space is not an error), and Walks
// random walks of at most Depth steps from Seed, each from an initial
// state chosen uniformly and taking an action chosen uniformly among the
// enabled ones, except that a walk takes no Crash before a step drawn
// uniformly in 0 … Depth (unless only crashes are enabled): crashes then
// come at every depth, after the processes have built up state to forget.
// Walk w uses PCG(Seed, w).
type ForgetSample struct {
	States       int
	Seed         uint64
	Walks, Depth int
}

// ForgetContractReport counts what CheckForgetContract compared, for the
// caller to ask that the check was not vacuous.
type ForgetContractReport struct {
	// Worlds is the number of plain worlds compared with their images
	// (repeats across walks counted), Crashed those with a crashed
	// process, Changed those whose image encodes differently (forgetting
	// changed a node or cleared a detection).
	Worlds, Crashed, Changed int
	// Steps is the number of transitions compared, CrashSteps those of a
	// Crash action.
	Steps, CrashSteps int
	// Verdicts is the number of property evaluations compared, Violations
	// those that found a violation (on both sides).
	Verdicts, Violations int
}

// CheckForgetContract checks env.Config.ForgetCrashed's contract state by
// state: plain and forget are the same model without and with it, driven
// in lockstep by the same actions over the worlds of sample. With s a
// world of plain, f the world forget reaches by the same actions, and
// φ = plain.Forgotten (each crashed node replaced by its Forget, its
// detections cleared), at every world compared it asks that
//
//   - f encodes as φ(s) (the forgetting search reaches exactly the images
//     of the plain worlds, Apply(φ(s), a) = φ(Apply(s, a))), and
//     forgetting f again changes nothing; and, independently of the
//     environment's φ, f's exported view (View) is s's with each crashed
//     node replaced by its own Forget (which leaves the forgotten node as
//     it is) and each crashed process's detections cleared;
//   - the enabled actions are the same: forget.Actions(f) equals
//     plain.Actions(s) as a list of (kind, p, q, i), and Quiescent agrees.
//     Nothing is excepted: what forgetting legitimately changes (the nodes
//     of crashed processes, which never step, and their detections, which
//     enable no action of a crashed process) is read by no action. The
//     persistent sets (Model.Persistent) are compared on plain, at s and
//     at φ(s): a model's may-send relation may legitimately depend on
//     whether it forgets (a message that leaves a crashable receiver's
//     Forget unchanged is harmless only there), so the two models' sets
//     are not comparable, but each must read live processes only;
//   - every property of the model evaluates the same on f as on s: nil on
//     both or an error on both (the messages may differ: one may print a
//     forgotten node). Invariant and Eventually properties (the latter's
//     Check, the state predicate) are evaluated on every world, Quiescence
//     properties on the quiescent ones;
//   - on every enabled action a, with s → s' its plain step and f → f'
//     the forgetting model's, f' encodes as φ(s'), the two steps have the
//     same actor and effects, and every Transition property's CheckStep
//     evaluates the same on (f, a, f') as on (s, a, s'). The forgetting
//     edge is the one the forgetting search checks: its worlds carry the
//     step (the actor and its effects, which a transition property reads
//     and φ alone does not keep), and on a crash step f holds the actor's
//     node as it was and f' its Forget, so a Forget that drops what such
//     a property reads of the crashed actor changes the verdict there.
//
// A Forget that drops a field a property reads is seen where the field
// decides a verdict: at a crash step for a transition property that reads
// the actor (ERA's irrevocability), or at a world whose verdict depends on
// the crashed process's field (ERA's validity under ulfm, gossipfd's
// completeness). A field that only a property holding either way reads
// (an accuracy property reading a crashed process's suspicions, on a
// correct protocol) is seen only on worlds where that property fails,
// which protocol mutants supply: callers run the check on them too.
//
// The two models must list the same properties (names and kinds, in
// order). The first difference is returned as an error that names the
// property or the check, the path to the world (described on plain), and
// the crashed nodes as they are in s and in f.
func CheckForgetContract(plain, forget *env.Model, sample ForgetSample) (ForgetContractReport, error) {
	c := &forgetContract{plain: plain, forget: forget}
	if plain.ForgetsCrashed() || !forget.ForgetsCrashed() {
		return c.rep, fmt.Errorf("envtest: CheckForgetContract(%s, %s): want a plain model and a forgetting one", plain.Name(), forget.Name())
	}
	pp, fp := plain.Properties(), forget.Properties()
	if len(pp) != len(fp) {
		return c.rep, fmt.Errorf("envtest: %s has %d properties, %s %d", plain.Name(), len(pp), forget.Name(), len(fp))
	}
	for i := range pp {
		if pp[i].Name != fp[i].Name || pp[i].Kind != fp[i].Kind {
			return c.rep, fmt.Errorf("envtest: property %d is %s (%v) on %s, %s (%v) on %s", i, pp[i].Name, pp[i].Kind, plain.Name(), fp[i].Name, fp[i].Kind, forget.Name())
		}
	}
	c.pp, c.fp = pp, fp
	pi, fi := plain.Init(), forget.Init()
	if len(pi) != len(fi) {
		return c.rep, fmt.Errorf("envtest: %d initial worlds on %s, %d on %s", len(pi), plain.Name(), len(fi), forget.Name())
	}
	if sample.States > 0 {
		if err := c.breadthFirst(pi, fi, sample.States); err != nil {
			return c.rep, err
		}
	}
	for k := range sample.Walks {
		r := rand.New(rand.NewPCG(sample.Seed, uint64(k)))
		i := r.IntN(len(pi))
		at := forgetPair{s: pi[i], f: fi[i], init: i}
		crashFrom := r.IntN(sample.Depth + 1)
		for depth := 0; ; depth++ {
			succ, err := c.compare(at)
			if err != nil {
				return c.rep, fmt.Errorf("walk %d (seed %d): %w", k, sample.Seed, err)
			}
			if len(succ) == 0 || depth == sample.Depth {
				break
			}
			at = pick(r, succ, depth < crashFrom)
		}
	}
	return c.rep, nil
}

// pick returns a successor chosen uniformly, among those not reached by
// a crash when noCrash and there are some.
func pick(r *rand.Rand, succ []forgetPair, noCrash bool) forgetPair {
	if noCrash {
		var others []forgetPair
		for _, n := range succ {
			if n.path[len(n.path)-1].Kind != env.Crash {
				others = append(others, n)
			}
		}
		if len(others) > 0 {
			succ = others
		}
	}
	return succ[r.IntN(len(succ))]
}

// forgetContract is the state of one CheckForgetContract.
type forgetContract struct {
	plain, forget *env.Model
	pp, fp        []checker.Property[*env.World]
	rep           ForgetContractReport
}

// forgetPair is a plain world s, the forgetting model's world f reached by
// the same actions, and those actions from initial world init.
type forgetPair struct {
	s, f *env.World
	init int
	path []checker.Action
}

// breadthFirst compares the first max distinct plain worlds reached
// breadth first.
func (c *forgetContract) breadthFirst(pi, fi []*env.World, max int) error {
	seen := map[string]bool{}
	var queue []forgetPair
	add := func(p forgetPair) {
		k := string(c.plain.Encode(nil, p.s))
		if len(seen) < max && !seen[k] {
			seen[k] = true
			queue = append(queue, p)
		}
	}
	for i := range pi {
		add(forgetPair{s: pi[i], f: fi[i], init: i})
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		succ, err := c.compare(p)
		if err != nil {
			return fmt.Errorf("breadth first: %w", err)
		}
		for _, n := range succ {
			add(n)
		}
	}
	return nil
}

// compare checks the pair at and every step from it, and returns the
// successor pairs.
func (c *forgetContract) compare(at forgetPair) ([]forgetPair, error) {
	s, f := at.s, at.f
	c.rep.Worlds++
	if s.NumCrashed() > 0 {
		c.rep.Crashed++
	}
	img, err := c.image(at)
	if err != nil {
		return nil, err
	}
	if err := c.views(at); err != nil {
		return nil, err
	}
	if !bytes.Equal(c.plain.Encode(nil, s), c.forget.Encode(nil, f)) {
		c.rep.Changed++
	}
	again, err := c.forget.Forgotten(f)
	if err != nil {
		return nil, c.fail(at, "forgetting the forgetting model's world: %v", err)
	}
	if !bytes.Equal(c.forget.Encode(nil, again), c.forget.Encode(nil, f)) {
		return nil, c.fail(at, "forgetting the forgetting model's world again changes it")
	}
	q := c.plain.Quiescent(s)
	if fq := c.forget.Quiescent(f); q != fq {
		return nil, c.fail(at, "quiescent %v on the world, %v on its image", q, fq)
	}
	acts, facts := c.plain.Actions(s, nil), c.forget.Actions(f, nil)
	if !slices.Equal(acts, facts) {
		return nil, c.fail(at, "enabled actions differ: [%s] on the world, [%s] on its image", describe(c.plain, s, acts), describe(c.forget, f, facts))
	}
	ps, is := c.plain.Persistent(s, acts, nil), c.plain.Persistent(img, acts, nil)
	if !slices.Equal(ps, is) {
		return nil, c.fail(at, "persistent sets differ: [%s] on the world, [%s] on its image (plain.Forgotten)", describe(c.plain, s, ps), describe(c.plain, s, is))
	}
	for i, p := range c.pp {
		if p.Kind == checker.Transition || p.Kind == checker.Quiescence && !q {
			continue
		}
		if err := c.verdict(p.Name, p.Check(s), c.fp[i].Check(f), at, ""); err != nil {
			return nil, err
		}
	}
	succ := make([]forgetPair, 0, len(acts))
	for _, a := range acts {
		next, err := c.step(at, a)
		if err != nil {
			return nil, err
		}
		succ = append(succ, next)
	}
	return succ, nil
}

// step compares the steps by a from at's two worlds, and returns the pair
// they reach.
func (c *forgetContract) step(at forgetPair, a checker.Action) (forgetPair, error) {
	s, f := at.s, at.f
	c.rep.Steps++
	if a.Kind == env.Crash {
		c.rep.CrashSteps++
	}
	s2, err := c.plain.Apply(s, a)
	if err != nil {
		return forgetPair{}, c.fail(at, "%s: %v", c.plain.Describe(s, a), err)
	}
	f2, err := c.forget.Apply(f, a)
	if err != nil {
		return forgetPair{}, c.fail(at, "%s on the image: %v", c.plain.Describe(s, a), err)
	}
	next := forgetPair{s: s2, f: f2, init: at.init, path: append(slices.Clip(at.path), a)}
	if s2.LastActor() != f2.LastActor() || effectsKey(s2.LastEffects()) != effectsKey(f2.LastEffects()) {
		return next, c.fail(next, "actor %v and effects %v on the world, actor %v and effects %v on its image",
			s2.LastActor(), s2.LastEffects(), f2.LastActor(), f2.LastEffects())
	}
	if _, err := c.image(next); err != nil {
		return next, err
	}
	for i, p := range c.pp {
		if p.Kind != checker.Transition {
			continue
		}
		if err := c.verdict(p.Name, p.CheckStep(s, a, s2), c.fp[i].CheckStep(f, a, f2), next, "on the last step of the path "); err != nil {
			return next, err
		}
	}
	return next, nil
}

// image checks that at.f encodes as plain.Forgotten(at.s), and returns
// the latter.
func (c *forgetContract) image(at forgetPair) (*env.World, error) {
	img, err := c.plain.Forgotten(at.s)
	if err != nil {
		return nil, c.fail(at, "forgetting the world: %v", err)
	}
	if !bytes.Equal(c.plain.Encode(nil, img), c.forget.Encode(nil, at.f)) {
		return nil, c.fail(at, "the forgetting model's world is not the plain world forgotten (plain.Forgotten)")
	}
	return img, nil
}

// views compares at.f with at.s through their exported views (View),
// with φ computed from the nodes' own Forget rather than the environment's:
// every live process is as it is in s, every crashed one has the Forget of
// its node in s (which its Forget leaves as it is) and no detection, and
// the rest of the world is the same.
func (c *forgetContract) views(at forgetPair) error {
	want, got := View(at.s), View(at.f)
	for p := range want.Procs {
		r := core.Rank(p)
		if !at.s.Crashed(r) {
			continue
		}
		fs, ok := at.s.Node(r).(env.Forgetter)
		ff, ok2 := at.f.Node(r).(env.Forgetter)
		if !ok || !ok2 {
			return c.fail(at, "crashed %v's node %T has no Forget", r, at.s.Node(r))
		}
		want.Procs[p].Node, want.Procs[p].Detected = fs.Forget().AppendBinary(nil), nil
		if again := ff.Forget().AppendBinary(nil); !bytes.Equal(again, got.Procs[p].Node) {
			return c.fail(at, "crashed %v's forgotten node %v is changed by Forget: %v", r, at.f.Node(r), ff.Forget())
		}
	}
	for p := range want.Procs {
		w, g := want.Procs[p], got.Procs[p]
		if !bytes.Equal(w.Node, g.Node) {
			return c.fail(at, "%v's node is %v on the image, want %x (%s)", core.Rank(p), at.f.Node(core.Rank(p)), w.Node, map[bool]string{true: "its Forget", false: "as in the world"}[at.s.Crashed(core.Rank(p))])
		}
		w.Node, g.Node = nil, nil
		if !reflect.DeepEqual(w, g) {
			return c.fail(at, "%v is %+v on the image, want %+v", core.Rank(p), g, w)
		}
	}
	want.Procs, got.Procs = nil, nil
	if !reflect.DeepEqual(want, got) {
		return c.fail(at, "the image is %+v, want %+v", got, want)
	}
	return nil
}

// verdict compares the verdicts of property name on the world (ps) and on
// its image (pf).
func (c *forgetContract) verdict(name string, ps, pf error, at forgetPair, where string) error {
	c.rep.Verdicts++
	if (ps == nil) == (pf == nil) {
		if ps != nil {
			c.rep.Violations++
		}
		return nil
	}
	say := func(err error) string {
		if err == nil {
			return "holds"
		}
		return "fails (" + err.Error() + ")"
	}
	return c.fail(at, "property %s %s%s on the world but %s on its image", name, where, say(ps), say(pf))
}

// fail is the error of a difference at the pair at: the model, the
// difference, the path described on plain and the crashed nodes of the
// plain world as they are and as forgotten in the forgetting one.
func (c *forgetContract) fail(at forgetPair, format string, args ...any) error {
	s, f := at.s, at.f
	var b strings.Builder
	fmt.Fprintf(&b, "%s: forget contract: %s\n  path from initial world %d:", c.forget.Name(), fmt.Sprintf(format, args...), at.init)
	w := c.plain.Init()[at.init]
	if len(at.path) == 0 {
		b.WriteString(" none")
	}
	for _, a := range at.path {
		fmt.Fprintf(&b, "\n    %s", c.plain.Describe(w, a))
		next, err := c.plain.Apply(w, a)
		if err != nil {
			break
		}
		w = next
	}
	for p := range core.Rank(s.N()) {
		if s.Crashed(p) {
			fmt.Fprintf(&b, "\n  crashed %v: %v\n    forgotten: %v", p, s.Node(p), f.Node(p))
		}
	}
	return errors.New(b.String())
}

// describe describes each action of as taken from w on m.
func describe(m *env.Model, w *env.World, as []checker.Action) string {
	ds := make([]string, len(as))
	for i, a := range as {
		ds[i] = m.Describe(w, a)
	}
	return strings.Join(ds, "; ")
}

// effectsKey is a canonical form of a step's effects: kinds, operands and
// the encodings of messages and values.
func effectsKey(effs []core.Effect) string {
	var b []byte
	for _, e := range effs {
		b = core.AppendUint(b, uint64(e.Kind))
		b = core.AppendInt(b, int64(e.To))
		b = core.AppendUint(b, e.Instance)
		b = core.AppendInt(b, int64(e.Peer))
		b = core.AppendUint(b, e.Timer)
		b = core.AppendUint(b, e.Delay)
		for _, v := range []interface{ AppendBinary([]byte) []byte }{e.Msg, e.Value} {
			if v == nil {
				b = append(b, 0)
				continue
			}
			enc := v.AppendBinary(nil)
			b = core.AppendUint(b, uint64(len(enc))+1)
			b = append(b, enc...)
		}
	}
	return string(b)
}
