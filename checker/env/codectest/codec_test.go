// Package codectest checks env.Model.Decode on the real protocols' models,
// as ftcheck builds them: it may import protocols and the models, which
// the checker itself never does (statemachine/deps_test.go).
package codectest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	modcorr "github.com/ftkernel/ftkernel/models/correction"
	modera "github.com/ftkernel/ftkernel/models/era"
	corrsm "github.com/ftkernel/ftkernel/statemachine/correction"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

// ignored are the fields Encode does not hold (a world's depth, last step,
// model and allocation block; edit ids), caches derived from encoded ones (process
// fingerprints, compared through Model.Fingerprint) and the protocols'
// scratch storage (ERA's inline record array, correction's message
// buffers).
var ignored = map[string]bool{
	"env.World.m": true, "env.World.blk": true, "env.World.depth": true, "env.World.last": true, "env.World.actor": true,
	"env.World.effects": true, "env.proc.edit": true, "env.proc.fp": true, "env.proc.enc": true, "env.tnode.edit": true,
	"era.Node.one": true, "correction.Node.msgs": true,
}

var worldCmp = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmp.FilterPath(func(p cmp.Path) bool {
		sf, ok := p.Last().(cmp.StructField)
		if !ok {
			return false
		}
		return ignored[p.Index(-2).Type().String()+"."+sf.Name()]
	}, cmp.Ignore()),
	cmp.Comparer(func(a, b erasm.Op) bool { return a == b || a != nil && b != nil && a.Name() == b.Name() }),
	cmpopts.EquateEmpty(),
}

func eraModel(t *testing.T, p modera.Params) *env.Model {
	t.Helper()
	m, err := modera.NewModel(p, modera.AllInputVectors(p))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func correctionModel(t *testing.T, p modcorr.Params) *env.Model {
	t.Helper()
	m, err := modcorr.NewModel(p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// models are ERA (both networks, the ULFM operation, GC, two agreements,
// star and string trees) and corrected broadcast (checked and
// opportunistic correction, synchronized and overlapped start, rounds).
func models(t *testing.T) map[string]*env.Model {
	base := modera.Params{N: 4, Crashes: 3, Agreements: 1, Values: 2, Topology: erasm.Binary, Op: erasm.And}
	out := map[string]*env.Model{"era": eraModel(t, base)}
	p := base
	p.Network, p.Loss = env.FIFO, env.LossOnCrash
	out["era-fifo-lose"] = eraModel(t, p)
	p = base
	p.Op, p.GC, p.Agreements, p.N, p.Crashes = erasm.ULFM, true, 2, 3, 2
	out["era-ulfm-gc-2"] = eraModel(t, p)
	p = base
	p.Topology, p.Blocking, p.Agreements, p.Values, p.N = erasm.Star, true, 2, 1, 3
	out["era-star-blocking"] = eraModel(t, p)
	p = base
	p.Topology = erasm.String
	out["era-string"] = eraModel(t, p)
	for _, c := range []struct {
		name string
		p    modcorr.Params
	}{
		{"correction-checked-sync", modcorr.Params{P: 4, Faults: 2, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, Correction: corrsm.Checked, Start: corrsm.Synchronized}},
		{"correction-opportunistic-overlapped", modcorr.Params{P: 4, Faults: 1, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, Correction: corrsm.Opportunistic, Distance: 2, Start: corrsm.Overlapped}},
		{"correction-checked-rounds", modcorr.Params{P: 5, Faults: 2, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, Correction: corrsm.Checked, Start: corrsm.Overlapped, Timing: env.LockStepRounds}},
	} {
		out[c.name] = correctionModel(t, c.p)
	}
	// Every mutant, too: a decoded world must behave as the original
	// even where the protocol is broken on purpose.
	for _, mu := range corrsm.Mutants {
		out["correction-"+string(mu)] = correctionModel(t, modcorr.Params{P: 4, Faults: 1, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved},
			Correction: corrsm.Checked, Start: corrsm.Synchronized, Mutant: mu})
	}
	for name, m := range faultModels(t) { // faults_test.go: crash-recovery, loss, duplication
		out[name] = m
	}
	for _, mu := range erasm.Mutants {
		p := base
		p.Mutant = mu
		out["era-"+string(mu)] = eraModel(t, p)
	}
	return out
}

func walk(m *env.Model, seed uint64, walks int) []*env.World {
	r := rand.New(rand.NewPCG(seed, 9))
	var out []*env.World
	inits := m.Init()
	for range walks {
		w := inits[r.IntN(len(inits))]
		out = append(out, w)
		for {
			as := m.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			next, err := m.Apply(w, as[r.IntN(len(as))])
			if err != nil {
				panic(err)
			}
			w = next
			out = append(out, w)
		}
	}
	return out
}

// TestDecodeRoundTripProtocols: on every state of random walks of every
// model above, decode(encode(w)) equals w (go-cmp), re-encodes to the same
// bytes, fingerprints the same, and enables the same actions; and worlds
// that differ never share an encoding or a fingerprint.
func TestDecodeRoundTripProtocols(t *testing.T) {
	for name, m := range models(t) {
		t.Run(name, func(t *testing.T) {
			if !m.Decodes() {
				t.Fatal("the model has no Codec")
			}
			byEnc := map[string]*env.World{}
			byFP := map[uint64]string{}
			states := walk(m, 1, 15)
			for _, w := range states {
				b := m.Encode(nil, w)
				got, err := m.Decode(b)
				if err != nil {
					t.Fatalf("%v: %v", w, err)
				}
				if diff := cmp.Diff(w, got, worldCmp...); diff != "" {
					t.Fatalf("decode(encode(w)) differs from w (-w +decoded):\n%s", diff)
				}
				if string(m.Encode(nil, got)) != string(b) || m.Fingerprint(got) != m.Fingerprint(w) ||
					m.Quiescent(got) != m.Quiescent(w) || !cmp.Equal(m.Actions(got, nil), m.Actions(w, nil)) {
					t.Fatalf("%v: the decoded world encodes, fingerprints or acts differently", w)
				}
				// Every step from the decoded world has the effects and
				// the successor of the same step from w.
				for _, a := range m.Actions(w, nil) {
					n1, err1 := m.Apply(w, a)
					n2, err2 := m.Apply(got, a)
					if (err1 == nil) != (err2 == nil) {
						t.Fatalf("%s: errors %v / %v", m.Describe(w, a), err1, err2)
					}
					if err1 == nil && (string(m.Encode(nil, n1)) != string(m.Encode(nil, n2)) ||
						fmt.Sprint(n1.LastEffects()) != fmt.Sprint(n2.LastEffects())) {
						t.Fatalf("%s: the step differs after decoding: effects %v / %v", m.Describe(w, a), n1.LastEffects(), n2.LastEffects())
					}
				}
				e := string(b)
				if o, ok := byEnc[e]; ok && o != w && !cmp.Equal(o, w, worldCmp...) {
					t.Fatalf("different worlds share an encoding:\n%s", cmp.Diff(o, w, worldCmp...))
				}
				byEnc[e] = w
				fp := m.Fingerprint(w)
				if o, ok := byFP[fp]; ok && o != e {
					t.Fatalf("different encodings share fingerprint %#x", fp)
				}
				byFP[fp] = e
			}
			t.Logf("%d states, %d distinct", len(states), len(byEnc))
		})
	}
}

// TestCompactFrontierProtocols: BFS with the compact frontier finds the
// whole-state frontier's counts on small ERA and correction models.
func TestCompactFrontierProtocols(t *testing.T) {
	for _, m := range []*env.Model{
		eraModel(t, modera.Params{N: 3, Crashes: 2, Agreements: 1, Values: 2, Topology: erasm.Binary, Op: erasm.And}),
		correctionModel(t, modcorr.Params{P: 4, Faults: 1, Tree: corrsm.Tree{Kind: corrsm.BinomialInterleaved}, Correction: corrsm.Checked, Start: corrsm.Synchronized, Timing: env.LockStepRounds}),
	} {
		whole := checker.BFS[*env.World](m, checker.Options{Workers: 2, WholeStates: true})
		comp := checker.BFS[*env.World](m, checker.Options{Workers: 2})
		if !comp.Compact || comp.Err != nil || comp.States != whole.States || comp.Transitions != whole.Transitions ||
			comp.Depth != whole.Depth || len(comp.Violations) != len(whole.Violations) {
			t.Fatalf("%s: compact %v %d/%d/%d (%v), whole %d/%d/%d", m.Name(), comp.Compact, comp.States, comp.Transitions, comp.Depth,
				comp.Err, whole.States, whole.Transitions, whole.Depth)
		}
		t.Logf("%s: %d states, %.1f bytes per queued state", m.Name(), comp.States, comp.QueueBytesPerState())
	}
}
