package diagnosis

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/golden"
	dg "github.com/ftkernel/ftkernel/statemachine/diagnosis"
)

// The Quint specification tla/vcube.qnt (module vcube: the tester rule and the timestamp merge)
// and the Go machine agree both ways:
//
//   - spec → code: TestQuintTracesReplayOnGo replays the committed quint traces
//     tla/traces/vcube8_seed20240611_*.itf.json (made by `npx quint run vcube.qnt --main vcube8
//     --backend typescript --invariants testerRule testsPerRound --max-samples 40 --max-steps 24
//     --seed 20240611 --n-traces 4 --out-itf traces/vcube8_seed20240611_{seq}.itf.json` in tla/)
//     on dg.VCube, state by state: timestamps, s, the fault set and each round's tests;
//   - code → spec: TestGoRunAsQuintReplay writes a Go run as the Quint test
//     tla/traces/go/vcube_replay.qnt, whose `run` asserts every Go state in the spec
//     (`npx quint test traces/go/vcube_replay.qnt --main vcube_replay --backend typescript` in
//     tla/). The test fails when the committed file differs from what the Go machine gives now;
//     VCUBE_WRITE_REPLAY=1 rewrites it.

type itfDoc struct {
	Vars   []string                     `json:"vars"`
	States []map[string]json.RawMessage `json:"states"`
}

func itfInt(t *testing.T, raw json.RawMessage) int {
	var v struct {
		Big string `json:"#bigint"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	k, err := strconv.Atoi(v.Big)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func itfSet(t *testing.T, raw json.RawMessage) []json.RawMessage {
	var v struct {
		Set []json.RawMessage `json:"#set"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v.Set
}

func itfTS(t *testing.T, raw json.RawMessage, n int) [][]uint32 {
	var outer struct {
		Map [][2]json.RawMessage `json:"#map"`
	}
	if err := json.Unmarshal(raw, &outer); err != nil {
		t.Fatal(err)
	}
	out := make([][]uint32, n)
	for _, kv := range outer.Map {
		i := itfInt(t, kv[0])
		var inner struct {
			Map [][2]json.RawMessage `json:"#map"`
		}
		if err := json.Unmarshal(kv[1], &inner); err != nil {
			t.Fatal(err)
		}
		out[i] = make([]uint32, n)
		for _, e := range inner.Map {
			out[i][itfInt(t, e[0])] = uint32(itfInt(t, e[1]))
		}
	}
	return out
}

func TestQuintTracesReplayOnGo(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "tla", "traces", "vcube8_seed*.itf.json"))
	if len(files) == 0 {
		t.Fatal("no committed vcube traces")
	}
	const n = 8
	events := 0
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc itfDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		get := func(k int, name string) json.RawMessage { return doc.States[k]["vcube8::vcube::"+name] }
		faultyOf := func(k int) []core.Rank {
			var f []core.Rank
			for _, r := range itfSet(t, get(k, "faulty")) {
				f = append(f, core.Rank(itfInt(t, r)))
			}
			slices.Sort(f)
			return f
		}
		v, err := dg.NewVCube(n, faultyOf(0), "")
		if err != nil {
			t.Fatal(err)
		}
		for k := 1; k < len(doc.States); k++ {
			prev, next := faultyOf(k-1), faultyOf(k)
			if !slices.Equal(prev, next) {
				for p := core.Rank(0); p < n; p++ {
					if slices.Contains(prev, p) != slices.Contains(next, p) {
						v.Event(p)
						events++
					}
				}
			} else {
				rep := v.Round()
				var want [][2]int
				for _, e := range itfSet(t, get(k, "tests")) {
					var tup struct {
						Tup []json.RawMessage `json:"#tup"`
					}
					if err := json.Unmarshal(e, &tup); err != nil {
						t.Fatal(err)
					}
					want = append(want, [2]int{itfInt(t, tup.Tup[0]), itfInt(t, tup.Tup[1])})
				}
				var got [][2]int
				for _, ts := range rep.Tests {
					got = append(got, [2]int{int(ts.Tester), int(ts.Tested)})
				}
				cmpPairs := func(a, b [2]int) int { return (a[0]-b[0])*100 + a[1] - b[1] }
				slices.SortFunc(want, cmpPairs)
				slices.SortFunc(got, cmpPairs)
				if !slices.Equal(got, want) {
					t.Fatalf("%s state %d: Go tests %v, spec %v", filepath.Base(file), k, got, want)
				}
			}
			if got, want := v.FaultSet(), next; !slices.Equal(got, want) {
				t.Fatalf("%s state %d: fault set %v, spec %v", filepath.Base(file), k, got, want)
			}
			if v.S != itfInt(t, get(k, "s")) {
				t.Fatalf("%s state %d: s = %d, spec %d", filepath.Base(file), k, v.S, itfInt(t, get(k, "s")))
			}
			want := itfTS(t, get(k, "ts"), n)
			for i := range want {
				if !slices.Equal(v.TS[i], want[i]) {
					t.Fatalf("%s state %d: ts[%d] = %v, spec %v", filepath.Base(file), k, i, v.TS[i], want[i])
				}
			}
		}
	}
	if events == 0 {
		t.Fatal("the traces have no event: the replay saw only rounds")
	}
}

// goReplay runs VCube at n = 8 from faulty {1, 2, 6}, seed 3, for 20 steps: a round, or (a
// third of the time once diagnosis is correct, at most twice) an event at a random node; it
// writes the run as a Quint test that takes the same actions and expects every Go state.
func goReplay() string {
	const n = 8
	rng := rand.New(rand.NewPCG(3, 0))
	v, _ := dg.NewVCube(n, []core.Rank{1, 2, 6}, "")
	state := func() string {
		var rows []string
		for i := 0; i < n; i++ {
			var es []string
			for k := 0; k < n; k++ {
				es = append(es, fmt.Sprintf("%d -> %d", k, v.TS[i][k]))
			}
			rows = append(rows, fmt.Sprintf("%d -> Map(%s)", i, strings.Join(es, ", ")))
		}
		var fs []string
		for _, r := range v.FaultSet() {
			fs = append(fs, strconv.Itoa(int(r)))
		}
		return fmt.Sprintf("all { faulty == Set(%s), s == %d, ts == Map(%s) }", strings.Join(fs, ", "), v.S, strings.Join(rows, ", "))
	}
	var b strings.Builder
	b.WriteString("// Generated by models/diagnosis TestGoRunAsQuintReplay (VCUBE_WRITE_REPLAY=1 rewrites it): a run of\n")
	b.WriteString("// the Go machine statemachine/diagnosis.VCube, each of its states expected in tla/vcube.qnt.\n")
	b.WriteString("module vcube_replay {\n  import vcube(LOGN = 3, EVENTS = 2, MUTANT = \"\").* from \"../../vcube\"\n\n")
	b.WriteString("  run replayTest =\n    all { faulty' = Set(1, 2, 6), ts' = Nodes.mapBy(i => Nodes.mapBy(k => 0)), s' = 1, events' = 0, tests' = Set() }\n")
	fmt.Fprintf(&b, "    .expect(%s)\n", state())
	events := 0
	for step := 0; step < 20; step++ {
		if events < 2 && dg.Converged(v, n) && rng.IntN(3) == 0 {
			p := core.Rank(rng.IntN(n))
			if !v.Faulty(p) && len(v.FaultSet()) == n-1 {
				p = v.FaultSet()[0]
			}
			v.Event(p)
			events++
			fmt.Fprintf(&b, "    .then(event(%d))\n", p)
		} else {
			v.Round()
			b.WriteString("    .then(round)\n")
		}
		fmt.Fprintf(&b, "    .expect(%s)\n", state())
	}
	b.WriteString("}\n")
	return b.String()
}

func TestGoRunAsQuintReplay(t *testing.T) {
	file := filepath.Join("..", "..", "tla", "traces", "go", "vcube_replay.qnt")
	got := goReplay()
	if !strings.Contains(got, ".then(event(") {
		t.Fatal("the Go run has no event")
	}
	golden.Check(t, file, got, "VCUBE_WRITE_REPLAY")
}
