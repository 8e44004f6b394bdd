package diagnosis

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
)

// TestScripts runs the thesis's scenarios of testdata/*.txt (regenerate the expected output with
// go test -run TestScripts -rewrite). The commands:
//
//	adsd|hiadsd|vcube n=8 faulty=(1,4,5) [mutant=NAME]   a fresh system, every node believing
//	                                                     every node fault-free
//	round [s=3]             one test round (s sets the round's s first): its tests, "0→1 0→2 …"
//	converge                rounds until every fault-free node's diagnosis is correct: how many
//	tested-up x=2           Adaptive-DSD's TESTED_UP_x, * for ⊥
//	diagnose x=2            the nodes x diagnoses faulty
//	event p=3               node p changes state
//	ring n=5 model=PMC      Fig. 3.1's test ring
//	diagnosable t=2         one-step t-diagnosability by brute force, with a collision if not
//	syndromes faulty=(0,1)  every syndrome the fault set can produce on the ring
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var sc script
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return sc.run(t, d)
		})
	})
}

type script struct {
	n     int
	sys   System
	ring  TestGraph
	model OutcomeModel
}

func ranksArg(t *testing.T, d *datadriven.TestData, key string) []core.Rank {
	var out []core.Rank
	for _, a := range d.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, v := range a.Vals {
			k, err := strconv.Atoi(v)
			if err != nil {
				d.Fatalf(t, "%s: %v", key, err)
			}
			out = append(out, core.Rank(k))
		}
	}
	return out
}

func setsString(bad []bool) string {
	var parts []string
	for k, b := range bad {
		if b {
			parts = append(parts, strconv.Itoa(k))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func maskString(m uint64) string {
	var parts []string
	for k := 0; k < 64; k++ {
		if m>>uint(k)&1 == 1 {
			parts = append(parts, fmt.Sprintf("u%d", k+1))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "adsd", "hiadsd", "vcube":
		var mut string
		d.ScanArgs(t, "n", &sc.n)
		d.MaybeScanArgs(t, "mutant", &mut)
		faulty := ranksArg(t, d, "faulty")
		var err error
		switch d.Cmd {
		case "adsd":
			sc.sys, err = NewADSD(sc.n, faulty, mutant.Name(mut))
		case "hiadsd":
			sc.sys, err = NewHiADSD(sc.n, faulty, mutant.Name(mut))
		default:
			sc.sys, err = NewVCube(sc.n, faulty, mutant.Name(mut))
		}
		if err != nil {
			return err.Error()
		}
		return "ok"
	case "round":
		if d.HasArg("s") {
			var s int
			d.ScanArgs(t, "s", &s)
			switch sys := sc.sys.(type) {
			case *HiADSD:
				sys.S = s
			case *VCube:
				sys.S = s
			}
		}
		rep := sc.sys.Round()
		var parts []string
		for _, ts := range rep.Tests {
			parts = append(parts, fmt.Sprintf("%d→%d", ts.Tester, ts.Tested))
		}
		head := fmt.Sprintf("%d tests", len(rep.Tests))
		if rep.S > 0 {
			head = fmt.Sprintf("s=%d: %s", rep.S, head)
		}
		return head + ": " + strings.Join(parts, " ")
	case "converge":
		for r := 0; r <= 4*sc.n; r++ {
			if Converged(sc.sys, sc.n) {
				return fmt.Sprintf("converged after %d rounds", r)
			}
			sc.sys.Round()
		}
		return "not converged"
	case "tested-up":
		var x int
		d.ScanArgs(t, "x", &x)
		var parts []string
		for _, r := range sc.sys.(*ADSD).TestedUp[x] {
			if r == core.NoRank {
				parts = append(parts, "*")
			} else {
				parts = append(parts, strconv.Itoa(int(r)))
			}
		}
		return strings.Join(parts, " ")
	case "diagnose":
		var x int
		d.ScanArgs(t, "x", &x)
		return setsString(sc.sys.Diagnose(core.Rank(x)))
	case "event":
		var p int
		d.ScanArgs(t, "p", &p)
		sc.sys.Event(core.Rank(p))
		return "faulty " + fmt.Sprint(sc.sys.FaultSet())
	case "ring":
		var n int
		var model string
		d.ScanArgs(t, "n", &n)
		d.ScanArgs(t, "model", &model)
		sc.ring, sc.model = Ring(n), map[string]OutcomeModel{"PMC": PMC, "BGM": BGM}[model]
		return "ok"
	case "diagnosable":
		var tt int
		d.ScanArgs(t, "t", &tt)
		ok, col := sc.ring.Diagnosable(sc.model, tt)
		if ok {
			return fmt.Sprintf("%d-diagnosable", tt)
		}
		return fmt.Sprintf("not %d-diagnosable: %s and %s both produce %s", tt, maskString(col.A), maskString(col.B),
			sc.ring.FormatSyndrome(col.Syndrome, 0))
	case "syndromes":
		var mask uint64
		for _, r := range ranksArg(t, d, "faulty") {
			mask |= 1 << uint(r)
		}
		var lines []string
		for _, syn := range sc.ring.Syndromes(sc.model, mask) {
			lines = append(lines, sc.ring.FormatSyndrome(syn, 0))
		}
		return strings.Join(lines, "\n")
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}
