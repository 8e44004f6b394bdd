package fuzz

import (
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/statemachine/era"
)

// TestWriteSeedCorpus regenerates the committed seed corpora under
// testdata/fuzz when FTKERNEL_WRITE_CORPUS=1 (it is skipped otherwise):
//
//	FTKERNEL_WRITE_CORPUS=1 go test -run TestWriteSeedCorpus ./fuzz
//
// Schedules are seeded random walks of the correct ERA kept when they reach
// decisions (with 0, 1 and 2 crashes, in several environments); decode seeds
// are encodings of real messages, nodes met along those walks, and a trace.
func TestWriteSeedCorpus(t *testing.T) {
	if os.Getenv("FTKERNEL_WRITE_CORPUS") == "" {
		t.Skip("set FTKERNEL_WRITE_CORPUS=1 to regenerate testdata/fuzz")
	}
	r := rand.New(rand.NewPCG(42, 1))
	want := map[[2]int]int{} // (header, crashes) → kept
	var schedules [][]byte
	var nodes [][]byte
	var traceJSON []byte
	for try := 0; try < 20000 && len(schedules) < 30; try++ {
		header := byte(r.IntN(numConfigs))
		data := []byte{header, byte(r.IntN(16))}
		m, err := configOf(header, mutant.None).model()
		if err != nil {
			t.Fatal(err)
		}
		s := m.Init()[int(data[1])%16]
		worlds := []*env.World{s}
		noCrash := r.IntN(3) == 0
		for !m.Quiescent(s) && len(data) < maxScheduleSteps {
			acts := m.Actions(s, nil)
			i := r.IntN(len(acts))
			for acts[i].Kind == env.Crash && (noCrash || r.IntN(3) != 0) {
				i = r.IntN(len(acts)) // crashes less often than uniform, or never
				if noCrash && acts[len(acts)-1].Kind == env.Crash && acts[0].Kind == env.Crash {
					break // only crashes left: cannot happen before quiescence
				}
			}
			if i > 255 {
				t.Fatalf("%d actions enabled: a byte cannot name them all", len(acts))
			}
			data = append(data, byte(i))
			if s, err = m.Apply(s, acts[i]); err != nil {
				t.Fatal(err)
			}
			worlds = append(worlds, s)
		}
		if !m.Quiescent(s) {
			continue
		}
		returned := 0
		for p := core.Rank(0); p < scheduleN; p++ {
			for _, rec := range s.History(p) {
				if rec.Kind == core.EffReturn {
					returned++
				}
			}
		}
		key := [2]int{int(header) % 6, s.NumCrashed()}
		if returned == 0 || want[key] >= 2 {
			continue
		}
		want[key]++
		schedules = append(schedules, data)
		for _, w := range []*env.World{worlds[len(worlds)/2], s} {
			for p := core.Rank(0); p < scheduleN; p++ {
				if n, ok := w.Node(p).(*era.Node); ok && len(nodes) < 24 {
					// Header: selector 2 with m's topology, N = 4, rank p.
					sel := byte(decodeNode) | byte(configOf(header, mutant.None).topology)<<2
					enc := n.AppendBinary(nil)
					if _, err := era.DecodeNode(enc, p, n.Config()); err != nil {
						t.Fatalf("a reachable node does not decode: %v", err)
					}
					nodes = append(nodes, append([]byte{sel, scheduleN - 1, byte(p)}, enc...))
				}
			}
		}
		if traceJSON == nil && s.NumCrashed() > 0 {
			tr := &checker.Trace{Model: m.Name(), Params: m.Params(), Init: int(data[1]) % 16}
			for i := 1; i < len(worlds); i++ {
				a := worlds[i].LastAction()
				tr.Steps = append(tr.Steps, checker.Step{Action: a, Text: m.Describe(worlds[i-1], a)})
			}
			dir := t.TempDir()
			if err := tr.WriteFile(filepath.Join(dir, "t.json")); err != nil {
				t.Fatal(err)
			}
			if traceJSON, err = os.ReadFile(filepath.Join(dir, "t.json")); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d schedules by (header%%6, crashes): %v", len(schedules), want)
	write := func(target string, data []byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("seed-%x", sha256.Sum256(data))[:21]
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range schedules {
		write("FuzzERASchedule", d)
	}
	var f1, a1 core.RankSet
	f1.Add(2)
	a1.Add(2)
	a1.Add(3)
	ulfm := era.NewContribution(1, f1, a1)
	msgs := []struct {
		sel byte
		m   core.Message
	}{
		{decodeMsgAnd, era.Up{A: 0, V: era.Flag(1)}},
		{decodeMsgAnd, era.Down{A: 0, V: era.Flag(0)}},
		{decodeMsgAnd, era.ResultRequest{A: 0}},
		{decodeMsgAnd, era.Up{A: 300, V: era.Flag(1 << 40)}},
		{decodeMsgULFM, era.Up{A: 1, V: ulfm}},
		{decodeMsgULFM, era.Down{A: 2, V: ulfm}},
		{decodeMsgULFM, era.ResultRequest{A: 7}},
	}
	for _, m := range msgs {
		write("FuzzERADecode", append([]byte{m.sel}, m.m.AppendBinary(nil)...))
	}
	for _, n := range nodes {
		write("FuzzERADecode", n)
	}
	if traceJSON != nil {
		write("FuzzERADecode", append([]byte{decodeTrace}, traceJSON...))
	}
}
