package ringfd_test

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	model "github.com/ftkernel/ftkernel/models/ringfd"
	fd "github.com/ftkernel/ftkernel/statemachine/ringfd"
)

// TestScenarios runs worked examples of the paper's §4.5–§4.6 as
// datadriven scripts in testdata/, readable without the Go code:
//
//	bmg n=12 from=0 [literal] [ompi] [dead=11,...]
//	    the send list of daemon `from`, the BMG hop count of every live
//	    daemon from it (BFS over the links between live daemons), the
//	    daemons reached in fewer hops than their depth in the binomial
//	    spanning tree rooted at `from`, and the Fault sends of one broadcast
//	    from `from` reaching every live daemon.
//	run n=8 procs=1 period=2 timeout=4 [delay=0] [noskip] [freshness] [waittick] [mutant=name]
//	crash <rank> at=<tick>
//	    simulates the scenario (models/ringfd) and prints the notable steps,
//	    the final ring, what every live entity knows, the counts and the
//	    violated properties.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch td.Cmd {
			case "bmg":
				return bmgCmd(t, td)
			case "run":
				return runCmd(t, td)
			}
			t.Fatalf("unknown command %q", td.Cmd)
			return ""
		})
	})
}

func intArg(t *testing.T, td *datadriven.TestData, key string, def int) int {
	if !td.HasArg(key) {
		return def
	}
	var v int
	td.ScanArgs(t, key, &v)
	return v
}

func ranksArg(t *testing.T, td *datadriven.TestData, key string) []core.Rank {
	arg, ok := td.Arg(key)
	if !ok {
		return nil
	}
	var out []core.Rank
	for _, v := range arg.Vals {
		x, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s=%s: %v", key, v, err)
		}
		out = append(out, core.Rank(x))
	}
	return out
}

func bmgCmd(t *testing.T, td *datadriven.TestData) string {
	cfg := fd.Config{N: intArg(t, td, "n", 8), LiteralLoop: td.HasArg("literal")}
	if td.HasArg("ompi") {
		cfg.BMG = fd.BMGOMPI
	}
	cfg, err := fd.Normalize(cfg)
	if err != nil {
		t.Fatal(err)
	}
	from := core.Rank(intArg(t, td, "from", 0))
	var dead core.RankSet
	for _, d := range ranksArg(t, td, "dead") {
		dead.Add(d)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "sends from %v: %v\n", from, cfg.Targets(from, dead))
	// BFS over live daemons; a daemon's links are its Targets.
	hop := make([]int, cfg.N)
	for i := range hop {
		hop[i] = -1
	}
	hop[from] = 0
	queue := []core.Rank{from}
	sends, toDead := 0, 0
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for _, j := range cfg.Targets(i, dead) {
			sends++
			if dead.Has(j) {
				toDead++
				continue
			}
			if hop[j] < 0 {
				hop[j] = hop[i] + 1
				queue = append(queue, j)
			}
		}
	}
	b.WriteString("hops:")
	for i, h := range hop {
		if !dead.Has(core.Rank(i)) {
			fmt.Fprintf(&b, " %d:%d", i, h)
		}
	}
	// The binomial spanning tree rooted at from (child = parent + 2^k)
	// reaches i at depth popcount(i − from); §4.6 (1) names the nodes the
	// redundant links reach earlier.
	var early []int
	for i, h := range hop {
		if h >= 0 && h < bits.OnesCount(uint((i-int(from)+cfg.N)%cfg.N)) {
			early = append(early, i)
		}
	}
	fmt.Fprintf(&b, "\nearlier than the binomial tree: %v", early)
	fmt.Fprintf(&b, "\nfault sends: %d (%d to dead daemons)\n", sends, toDead)
	return b.String()
}

func runCmd(t *testing.T, td *datadriven.TestData) string {
	p := model.Params{
		N: intArg(t, td, "n", 8), Procs: intArg(t, td, "procs", 1),
		Period: uint64(intArg(t, td, "period", 2)), Timeout: uint64(intArg(t, td, "timeout", 4)),
		NoSkip: td.HasArg("noskip"), RequestWaitsForTick: td.HasArg("waittick"), Trace: true,
		Horizon: uint64(intArg(t, td, "horizon", 0)),
	}
	if td.HasArg("mutant") {
		var m string
		td.ScanArgs(t, "mutant", &m)
		p.Mutant = mutant.Name(m)
	}
	if td.HasArg("freshness") {
		p.Trust = fd.Freshness
	}
	if d := intArg(t, td, "delay", 0); d == 0 {
		p.ZeroDelay = true
	} else {
		p.DelayMin, p.DelayMax = uint64(d), uint64(d)
	}
	for _, line := range strings.Split(strings.TrimSpace(td.Input), "\n") {
		var r int
		var at uint64
		if _, err := fmt.Sscanf(line, "crash %d at=%d", &r, &at); err != nil {
			t.Fatalf("%q: want \"crash <rank> at=<tick>\"", line)
		}
		p.Crashes = append(p.Crashes, model.Crash{Rank: core.Rank(r), At: at})
		p.CrashAt = max(p.CrashAt, at)
	}
	res, err := model.Run(p)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range res.Logs {
		fmt.Fprintf(&b, "t=%d %s\n", l.T, l.Text)
	}
	b.WriteString("ring:")
	for d := 0; d < p.N; d++ {
		if n := res.Machines[d].(*fd.Daemon); !isDead(res, core.Rank(d)) {
			fmt.Fprintf(&b, " %d<-%v", d, n.Pred())
		}
	}
	b.WriteString("\n")
	// What the live entities know, grouped.
	groups := map[string][]string{}
	var keys []string
	for r, m := range res.Machines {
		if isDead(res, core.Rank(r)) {
			continue
		}
		var rep core.RankSet
		switch n := m.(type) {
		case *fd.Daemon:
			rep = n.Reported()
		case *fd.Process:
			rep = n.Reported()
		}
		k := rep.String()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], core.Rank(r).String())
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "reported %s at %d live entities\n", k, len(groups[k]))
	}
	fmt.Fprintf(&b, "messages: daemon %d, process %d, requests %d; broadcasts per daemon %v\n",
		res.MessagesDaemon, res.MessagesProcess, res.MessagesRequest, res.Broadcasts)
	fmt.Fprintf(&b, "hops_max %d, detection_latency %d, propagation_latency %d\n",
		res.HopsMax, res.DetectionLatency, res.PropagationLatency)
	fmt.Fprintf(&b, "violations: %v\n", res.Violations)
	return b.String()
}

// isDead reports whether rank r crashed (alone or with its daemon).
func isDead(res *model.Result, r core.Rank) bool { return res.Dead[r] }
