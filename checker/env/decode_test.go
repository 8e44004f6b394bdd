package env

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// Decoders of the toy protocols (toy_test.go, timer_test.go), the inverses
// of their AppendBinary, for the round-trip tests.

func decodeToy(star bool) func(b []byte, p core.Rank, n int) (core.Machine, error) {
	return func(b []byte, p core.Rank, n int) (core.Machine, error) {
		d := core.NewDecoder(b)
		t := &toy{star: star, n: n}
		t.me = d.Rank(n)
		t.suspected = core.DecodeRankSet(d, n)
		k := d.Len(d.Remaining())
		for range k {
			x := &inst{a: d.Uint(), called: d.Bool(), decided: d.Bool(), heard: make([]bool, n), vals: make([]int64, n)}
			for q := range n {
				x.heard[q] = d.Bool()
				x.vals[q] = d.Int()
			}
			t.insts = append(t.insts, x)
		}
		if err := d.Finish(); err != nil {
			return nil, err
		}
		if t.me != p {
			return nil, fmt.Errorf("%w: rank %v, want %v", core.ErrMalformed, t.me, p)
		}
		return t, nil
	}
}

func decodeMsg(b []byte) (core.Message, error) {
	d := core.NewDecoder(b)
	k := d.String(3)
	m := msg{A: d.Uint(), V: d.Int(), Dec: k == "DEC"}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if k != "DEC" && k != "VAL" {
		return nil, fmt.Errorf("%w: kind %q", core.ErrMalformed, k)
	}
	return m, nil
}

func decodeVal(b []byte) (core.Value, error) {
	d := core.NewDecoder(b)
	v := val(d.Int())
	return v, d.Finish()
}

var toyCodec = Codec{Node: decodeToy(false), Message: decodeMsg, Value: decodeVal}

func tickerCodec(limit int) Codec {
	return Codec{
		Node: func(b []byte, p core.Rank, n int) (core.Machine, error) {
			t := &ticker{me: p, n: n, limit: limit}
			if _, err := fmt.Sscanf(string(b), "%d/%d/%d", &t.ticks, &t.woken, &t.got); err != nil {
				return nil, fmt.Errorf("%w: %v", core.ErrMalformed, err)
			}
			if string(t.AppendBinary(nil)) != string(b) {
				return nil, fmt.Errorf("%w: not canonical", core.ErrMalformed)
			}
			return t, nil
		},
		Message: func(b []byte) (core.Message, error) {
			if string(b) != "T" {
				return nil, fmt.Errorf("%w: not a TICK", core.ErrMalformed)
			}
			return tick{}, nil
		},
		Value: decodeVal,
	}
}

// codecConfigs are the toy models with their codecs, covering both
// networks, lost messages, blocking calls, Fail ranks, several schedule
// alternatives, timers, wakeups and rounds.
func codecConfigs() map[string]Config {
	out := map[string]Config{}
	flood := floodConfig(3)
	flood.Crashes = 2
	flood.Codec = toyCodec
	out["flood"] = flood
	fifo := flood
	fifo.Network, fifo.Loss = FIFO, LossOnCrash
	out["flood-fifo-lose"] = fifo
	blk := flood
	blk.Blocking, blk.Crashes, blk.Fail = true, 1, []core.Rank{2}
	blk.Schedules = [][][]core.Input{one(0, 1, 2), one(1, 1, 0), {{in{A: 0, V: 1}, in{A: 1, V: 0, Twice: true}}, {in{A: 1, V: 1}}, nil}}
	out["flood-blocking-fail-alts"] = blk
	star := floodConfig(4)
	star.NewNode, star.Codec = newStar, Codec{Node: decodeToy(true), Message: decodeMsg, Value: decodeVal}
	out["star"] = star
	tk := tickerConfig(3, 2)
	tk.Crashes, tk.Wakeups, tk.Survivors, tk.CrashBeforeWakeup = 1, []uint64{7}, []core.Rank{0}, true
	tk.Codec = tickerCodec(2)
	out["ticker-wakeup"] = tk
	rd := tickerConfig(3, 2)
	rd.Timing, rd.Crashes, rd.Codec = LockStepRounds, 1, tickerCodec(2)
	out["ticker-rounds"] = rd
	bd := tickerConfig(3, 2)
	bd.Timing, bd.Delta, bd.Crashes, bd.Codec = BoundedDelay, 2, 1, tickerCodec(2)
	out["ticker-bounded"] = bd
	fb := flood
	fb.Timing, fb.Delta = BoundedDelay, 3
	out["flood-bounded"] = fb
	fbf := fb
	fbf.Network = FIFO
	out["flood-bounded-fifo"] = fbf
	maps.Copy(out, faultCodecConfigs()) // lossdup_test.go
	return out
}

// worldCmp compares worlds by everything Encode captures, and the derived
// fields Decode rebuilds (aggregates, liveness, counts), leaving out what
// Encode does not hold (depth, last step, edit ids, the model pointer, the
// world's allocation block) and the cached process fingerprints and
// encodings (compared through
// Model.Fingerprint and Encode).
var worldCmp = []cmp.Option{
	cmp.AllowUnexported(World{}, proc{}, tnode{}, entry{}, agg{}, toy{}, inst{}, ticker{}, faultState{}, disk{}, pipe{}),
	cmpopts.IgnoreFields(World{}, "m", "blk", "depth", "last", "actor", "effects", "now"),
	cmpopts.IgnoreFields(proc{}, "edit", "fp", "enc", "ns"),
	cmpopts.IgnoreFields(tnode{}, "edit"),
	cmpopts.EquateEmpty(),
}

// walkStates returns every state of walks random walks from the initial
// states (seeded), each at most steps long.
func walkStates(m *Model, seed uint64, walks, steps int) []*World {
	r := rand.New(rand.NewPCG(seed, 1))
	var out []*World
	inits := m.Init()
	for range walks {
		w := inits[r.IntN(len(inits))]
		out = append(out, w)
		for range steps {
			as := m.Actions(w, nil)
			if len(as) == 0 {
				break
			}
			next, err := m.Apply(w, as[r.IntN(len(as))])
			if err != nil {
				break // the toys' deliberate failures (V = 98, 99) are not ours
			}
			w = next
			out = append(out, w)
		}
	}
	return out
}

// TestDecodeRoundTrip: decode(encode(w)) equals w (go-cmp), re-encodes to
// the same bytes, has the same fingerprint, actions and quiescence, on
// every state of random walks of every toy model.
func TestDecodeRoundTrip(t *testing.T) {
	for name, cfg := range codecConfigs() {
		t.Run(name, func(t *testing.T) {
			m := mustNew(t, cfg)
			if !m.Decodes() {
				t.Fatal("Decodes false with a Codec")
			}
			states := walkStates(m, 1, 40, 40)
			for _, w := range states {
				b := m.Encode(nil, w)
				got, err := m.Decode(b)
				if err != nil {
					t.Fatalf("%v: %v", w, err)
				}
				if diff := cmp.Diff(w, got, worldCmp...); diff != "" {
					t.Fatalf("decode(encode(w)) differs from w (-w +decoded):\n%s", diff)
				}
				if string(m.Encode(nil, got)) != string(b) || m.Fingerprint(got) != m.Fingerprint(w) {
					t.Fatalf("%v: decoded world encodes or fingerprints differently", w)
				}
				if m.Quiescent(got) != m.Quiescent(w) || !cmp.Equal(m.Actions(got, nil), m.Actions(w, nil)) {
					t.Fatalf("%v: decoded world has other actions or quiescence", w)
				}
			}
			t.Logf("%d states", len(states))
		})
	}
}

// TestDecodeDistinct: worlds that differ (go-cmp, as in the round trip)
// never share an encoding or a fingerprint, over every state of a complete
// search of small toys and of random walks of the others.
func TestDecodeDistinct(t *testing.T) {
	for name, cfg := range codecConfigs() {
		t.Run(name, func(t *testing.T) {
			m := mustNew(t, cfg)
			states := walkStates(m, 2, 60, 40)
			byEnc := map[string]*World{}
			byFP := map[uint64]string{}
			for _, w := range states {
				e := string(m.Encode(nil, w))
				if o, ok := byEnc[e]; ok && !cmp.Equal(o, w, worldCmp...) {
					t.Fatalf("different worlds share an encoding:\n%s", cmp.Diff(o, w, worldCmp...))
				}
				byEnc[e] = w
				fp := m.Fingerprint(w)
				if o, ok := byFP[fp]; ok && o != e {
					t.Fatalf("different encodings share fingerprint %#x", fp)
				}
				byFP[fp] = e
			}
			if len(byEnc) < 20 {
				t.Fatalf("only %d distinct worlds: the test sees too little", len(byEnc))
			}
		})
	}
}

// TestDecodeMalformed: truncations and byte flips of real encodings are
// errors or decode to worlds that re-encode to exactly those bytes (a
// flip may hit another valid encoding); never a panic.
func TestDecodeMalformed(t *testing.T) {
	m := mustNew(t, codecConfigs()["flood-blocking-fail-alts"])
	r := rand.New(rand.NewPCG(3, 3))
	for _, w := range walkStates(m, 3, 50, 30) {
		b := m.Encode(nil, w)
		for cut := 0; cut < len(b); cut++ {
			if _, err := m.Decode(b[:cut]); err == nil {
				t.Fatalf("a truncation to %d of %d bytes decoded", cut, len(b))
			}
		}
		for range 20 {
			c := append([]byte(nil), b...)
			c[r.IntN(len(c))] ^= byte(1 + r.IntN(255))
			got, err := m.Decode(c)
			if err == nil && string(m.Encode(nil, got)) != string(c) {
				t.Fatalf("flipped bytes decoded to a world that encodes differently")
			}
			if err != nil && !errors.Is(err, core.ErrMalformed) {
				t.Fatalf("error %v does not wrap core.ErrMalformed", err)
			}
		}
	}
	if _, err := mustNew(t, floodConfig(2)).Decode(nil); err == nil {
		t.Fatal("a model without a Codec decoded")
	}
}

// TestCompactFrontierEnv: BFS of an env model with a Codec holds its
// frontier as encodings and finds exactly the counts and counterexamples of
// the whole-state frontier.
func TestCompactFrontierEnv(t *testing.T) {
	for name, cfg := range codecConfigs() {
		m := mustNew(t, cfg)
		whole := checker.BFS[*World](m, checker.Options{Workers: 2, WholeStates: true})
		comp := checker.BFS[*World](m, checker.Options{Workers: 2})
		if !comp.Compact || whole.Compact {
			t.Fatalf("%s: compact %v / %v", name, comp.Compact, whole.Compact)
		}
		if comp.Err != nil || comp.States != whole.States || comp.Transitions != whole.Transitions || comp.Depth != whole.Depth {
			t.Fatalf("%s: compact %d/%d/%d (%v), whole %d/%d/%d (%v)", name, comp.States, comp.Transitions, comp.Depth, comp.Err,
				whole.States, whole.Transitions, whole.Depth, whole.Err)
		}
	}
}
