package hyperquicksort

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
)

// TestScripts runs the thesis's scenarios of testdata/*.txt (regenerate the
// expected output with go test -run TestScripts -rewrite). The commands:
//
//	init n=8 values=2     processes p0 … p7 holding the values n·values−1 … 0,
//	                      decreasing (p0 the largest), saved to the store
//	round nonrec=(4,5)    one sorting round with that non-recommended set: who
//	                      plays whom, every exchange (→ a message, ⇄ local),
//	                      the lists after it; messages delivered in FIFO order
//	view p=3 nonrec=(1,2) process p reads this non-recommended set instead in
//	                      the next round (members disagreeing at a barrier,
//	                      AMBIGUOUS-5); a refused message and the processes
//	                      left waiting are printed
//	output                the lists by rank and whether they are sorted
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var sc script
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return sc.run(t, d)
		})
	})
}

type script struct {
	cfg   *Config
	procs []*Process
	store [][]int32
	round int
	last  Round
	views map[core.Rank]core.RankSet
}

func setArg(t *testing.T, d *datadriven.TestData, key string) core.RankSet {
	var set core.RankSet
	for _, a := range d.CmdArgs {
		if a.Key != key {
			continue
		}
		for _, x := range a.Vals {
			k, err := strconv.Atoi(x)
			if err != nil {
				d.Fatalf(t, "%s: %v", key, err)
			}
			set.Add(core.Rank(k))
		}
	}
	return set
}

func (sc *script) run(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "init":
		var n, v int
		d.ScanArgs(t, "n", &n)
		d.ScanArgs(t, "values", &v)
		sc.cfg, sc.round = &Config{N: n}, 0
		sc.procs, sc.store = make([]*Process, n), make([][]int32, n)
		for i := range n {
			in := make([]int32, v)
			for j := range in {
				in[j] = int32(n*v - 1 - (i*v + j))
			}
			p, err := NewProcess(core.Rank(i), sc.cfg, in)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			sc.procs[i] = p
			sc.store[i], _ = p.List(core.Rank(i))
		}
		return lists(sc.store)
	case "view":
		var p int
		d.ScanArgs(t, "p", &p)
		if sc.views == nil {
			sc.views = map[core.Rank]core.RankSet{}
		}
		sc.views[core.Rank(p)] = setArg(t, d, "nonrec")
		return ""
	case "round":
		nonRec := setArg(t, d, "nonrec")
		dim, _ := Dim(sc.cfg.N)
		r := Round{N: sc.cfg.N, S: dim - sc.round, Index: sc.round, NonRec: nonRec}
		out, err := sc.step(r)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		sc.round++
		sc.last = r
		return out
	case "output":
		out := make([][]int32, sc.cfg.N)
		sorted := true
		var prev int32 = -1 << 31
		for v := range core.Rank(sc.cfg.N) {
			out[v], _ = sc.procs[sc.last.Player(v)].List(v)
			for _, x := range out[v] {
				sorted = sorted && x >= prev
				prev = x
			}
		}
		return fmt.Sprintf("%s\nsorted: %v\n", FormatLists(out), sorted)
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

func lists(ls [][]int32) string {
	var b strings.Builder
	for v, l := range ls {
		fmt.Fprintf(&b, "v%d=%s\n", v, FormatValues(l))
	}
	return b.String()
}

// step runs round r: every recommended process starts, then messages are
// delivered first in, first out.
func (sc *script) step(r Round) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "s=%d non-recommended %v\n", r.S, r.NonRec)
	var plays []string
	for v := range core.Rank(r.N) {
		if p := r.Player(v); p != v {
			plays = append(plays, fmt.Sprintf("p%d plays v%d", p, v))
		}
	}
	if len(plays) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(plays, ", "))
	}
	var queue []Msg
	take := func(eff Effects) {
		for _, w := range eff.Writes {
			sc.store[w.V] = w.Values
		}
		for _, v := range eff.Reads {
			fmt.Fprintf(&b, "read v%d from the store\n", v)
		}
		queue = append(queue, eff.Out...)
	}
	view := func(i core.Rank) Round {
		if v, ok := sc.views[i]; ok {
			return Round{N: r.N, S: r.S, Index: r.Index, NonRec: v}
		}
		return r
	}
	for i := range core.Rank(r.N) {
		ri := view(i)
		if ri.NonRec.Has(i) {
			continue
		}
		if _, ok := sc.views[i]; ok {
			var plays []string
			for _, v := range ri.Plays(i) {
				plays = append(plays, fmt.Sprintf("v%d", v))
			}
			fmt.Fprintf(&b, "p%d reads non-recommended %v and plays %s\n", i, ri.NonRec, strings.Join(plays, " "))
		}
		eff, err := sc.procs[i].Start(ri, func(v core.Rank) []int32 { return sc.store[v] })
		if err != nil {
			return "", err
		}
		take(eff)
	}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		if !m.IsPivot {
			fmt.Fprintf(&b, "v%d → v%d: %s (p%d → p%d)\n", m.FromV, m.ToV, FormatValues(m.Values), m.From, m.To)
		}
		if !sc.procs[m.To].Active() && view(m.To).NonRec.Has(m.To) {
			fmt.Fprintf(&b, "  dropped: p%d takes no part\n", m.To)
			continue
		}
		eff, err := sc.procs[m.To].Deliver(m)
		if err != nil {
			if sc.views == nil {
				return "", err
			}
			fmt.Fprintf(&b, "  refused: %v\n", err)
			continue
		}
		take(eff)
	}
	if sc.views != nil {
		var waiting []string
		for i := range core.Rank(r.N) {
			if sc.procs[i].Active() {
				waiting = append(waiting, fmt.Sprintf("p%d", i))
			}
		}
		sc.views = nil
		fmt.Fprintf(&b, "still in the round: %s\n", strings.Join(waiting, " "))
		b.WriteString(lists(sc.store))
		return b.String(), nil
	}
	for v := range core.Rank(r.N) {
		if w := r.Partner(v); v < w && r.Player(v) == r.Player(w) {
			fmt.Fprintf(&b, "v%d ⇄ v%d inside p%d\n", v, w, r.Player(v))
		}
	}
	for i := range core.Rank(r.N) {
		if !r.NonRec.Has(i) && sc.procs[i].Active() {
			return "", fmt.Errorf("p%d did not end the round", i)
		}
	}
	b.WriteString(lists(sc.store))
	return b.String(), nil
}
