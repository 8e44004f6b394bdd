package era

import (
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/models/internal/flagcheck"
	"github.com/ftkernel/ftkernel/registry"
	erasm "github.com/ftkernel/ftkernel/statemachine/era"
)

func init() {
	registry.Register(&registry.Protocol{
		Name:     "era",
		Doc:      "Early Returning Agreement (Herault et al., SC'15 §2): UP/DOWN/RESULTREQUEST over a mended tree",
		Define:   defineERA,
		Mutants:  eraMutants(),
		Simulate: simulateERA,
		// The random walks consult registry.RunLog (simshard.go); the
		// ulfm-bench scenario does not, and is refused when sharded.
		ShardsSimulate: true,
	})
}

// Params are the parameters of an ERA model.
type Params struct {
	N          int
	Crashes    int
	Agreements int            // concurrent agreements a = 0 … Agreements-1
	Values     int            // contributions range over Flag(0) … Flag(Values-1)
	Topology   erasm.Topology // the flat tree, or the X level of an X/Y tree (§3)
	Intra      erasm.Topology // the Y level of an X/Y tree (NodeSize > 0)
	NodeSize   int            // ranks per node of an X/Y tree; 0: flat
	Rebalance  bool           // §3 Tree Rebalancing between consecutive agreements (needs Op ULFM and Blocking)
	Network    env.Network
	Loss       env.Loss
	Blocking   bool
	Op         erasm.Op
	GC         bool
	Mutant     mutant.Name
	Fail       []core.Rank
	CrashProb  float64
	// ForgetCrashed: a crashed process's node is replaced by its Forget
	// (Input and Result kept; env.Config.ForgetCrashed, erasm Node.Forget).
	ForgetCrashed bool
}

// Tree is the initial tree of p: Topology, Intra and NodeSize.
func (p Params) Tree() erasm.Tree {
	return erasm.Tree{X: p.Topology, Y: p.Intra, NodeSize: p.NodeSize}
}

// eraFlags binds the model flags shared by check and simulate.
type eraFlags struct {
	n, crashes, agreements, values, nodeSize int
	topology, network, op, mut               string
	lose, blocking, gc, rebalance, forget    bool
	fail                                     string
	inputsSeed                               int64
	fs                                       *flag.FlagSet
}

func bindERA(fs *flag.FlagSet, n int) *eraFlags {
	f := &eraFlags{fs: fs}
	fs.IntVar(&f.n, "n", n, fmt.Sprintf("number of processes N (ranks 0..N-1), 1 … %d (check: 1 … %d, unless --inputs-seed picks one input vector)", erasm.MaxN, MaxCheckN))
	fs.IntVar(&f.crashes, "crashes", 1, "crash budget F: at most this many processes crash, at any step, 0 … N-1")
	fs.IntVar(&f.agreements, "agreements", 1, fmt.Sprintf("number of concurrent agreements (a = 0, 1, …), 1 … %d", MaxAgreements))
	fs.IntVar(&f.values, "values", 2, fmt.Sprintf("contributions range over the flags 0 … values-1; values 1 … %d", MaxValues))
	fs.StringVar(&f.topology, "topology", "binary", "tree: binary|star|string (flat), or X/Y with X, Y among them (§3: X over the node representatives, Y within a node; needs --node-size)")
	fs.IntVar(&f.nodeSize, "node-size", 0, "ranks per node of an X/Y tree (consecutive ranks; the first represents the node), 0 … N (0: a flat tree)")
	fs.BoolVar(&f.rebalance, "rebalance", false, "§3 Tree Rebalancing: agreement a ≥ 1 runs on the tree rebuilt over the survivors agreed by a-1 (needs --op ulfm --blocking)")
	fs.StringVar(&f.network, "network", "unordered", "network: unordered (multiset)|fifo (per pair)")
	fs.StringVar(&f.op, "op", "and", "combine operation F: and (bitwise AND) | ulfm (MPIX_Comm_agree: flag, failed, acknowledged)")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	fs.BoolVar(&f.lose, "lose-on-crash", false, "messages already sent by a process that then crashes may be lost")
	fs.BoolVar(&f.blocking, "blocking", false, "a process makes its next Agreement call only after the previous one returned")
	fs.BoolVar(&f.gc, "gc", false, "garbage-collect agreement state after return (§3)")
	fs.StringVar(&f.fail, "fail", "", "ranks that must crash at some point, e.g. 0,4,16-31 (outside --crashes)")
	fs.BoolVar(&f.forget, "forget-crashed", false, "replace a crashed process's state by what the properties read of it (its inputs and Results): fewer states, the same verdicts (checker/env forget.go)")
	fs.Int64Var(&f.inputsSeed, "inputs-seed", -1, "one input vector drawn from this seed, 0 … 2^63-1, instead of all of them (-1: all; simulate sets it to --seed)")
	return f
}

// Ranges of the size flags, checked before anything is built from them.
const (
	// MaxCheckN is the largest --n of an exhaustive check over every input
	// vector.
	MaxCheckN = 12
	// MaxAgreements bounds --agreements (N·agreements inputs are drawn).
	MaxAgreements = 64
	// MaxValues bounds --values.
	MaxValues = 1 << 16
)

// sizes checks the size flags against their ranges.
func (f *eraFlags) sizes() error {
	return flagcheck.First(
		flagcheck.Int("n", int64(f.n), 1, erasm.MaxN, ""),
		flagcheck.Int("crashes", int64(f.crashes), 0, int64(f.n)-1, "the paper assumes one process survives"),
		flagcheck.Int("agreements", int64(f.agreements), 1, MaxAgreements, ""),
		flagcheck.Int("values", int64(f.values), 1, MaxValues, ""),
		flagcheck.Int("node-size", int64(f.nodeSize), 0, int64(f.n), ""),
		flagcheck.Int("inputs-seed", f.inputsSeed, -1, math.MaxInt64, "-1: all input vectors; a seed is ≥ 0"),
	)
}

func (f *eraFlags) params() (Params, error) {
	if err := f.sizes(); err != nil {
		return Params{}, err
	}
	p := Params{N: f.n, Crashes: f.crashes, Agreements: f.agreements, Values: f.values,
		Blocking: f.blocking, GC: f.gc, Mutant: mutant.Name(f.mut), ForgetCrashed: f.forget}
	if f.lose {
		p.Loss = env.LossOnCrash
	}
	topo := f.topology
	if topo == "chain" {
		topo = "string"
	}
	t, err := erasm.ParseTree(topo, f.nodeSize)
	if err != nil {
		return p, fmt.Errorf("--topology %q --node-size %d: want binary, star or string, or X/Y of them with --node-size ≥ 1: %w", f.topology, f.nodeSize, err)
	}
	p.Topology, p.Intra, p.NodeSize = t.X, t.Y, t.NodeSize
	p.Rebalance = f.rebalance
	if p.Network, err = env.ParseNetwork(f.network); err != nil {
		return p, fmt.Errorf("--network %q: want unordered or fifo", f.network)
	}
	switch f.op {
	case "and":
		p.Op = erasm.And
	case "ulfm":
		p.Op = erasm.ULFM
	default:
		return p, fmt.Errorf("--op %q: want and or ulfm", f.op)
	}
	if p.Rebalance && (p.Op != erasm.ULFM || !p.Blocking) {
		return p, fmt.Errorf("--rebalance needs --op ulfm (the agreed set of failures) and --blocking (agreement a is called after a-1 returned)")
	}
	if p.Fail, err = parseRanks(f.fail, p.N); err != nil {
		return p, err
	}
	if len(p.Fail)+p.Crashes >= p.N {
		return p, fmt.Errorf("--fail and --crashes would crash every process; the paper assumes one survives")
	}
	if p.Mutant != mutant.None {
		ok := false
		for _, m := range erasm.Mutants {
			ok = ok || m == p.Mutant
		}
		if !ok {
			return p, fmt.Errorf("--mutant %q: unknown ERA mutant (see ftcheck list)", f.mut)
		}
	}
	return p, nil
}

// own lists the flag values of the model flags, for traces.
func (f *eraFlags) own() map[string]string {
	out := map[string]string{}
	for _, name := range []string{"n", "crashes", "agreements", "values", "topology", "node-size", "rebalance", "network", "op", "mutant", "lose-on-crash", "blocking", "gc", "fail", "inputs-seed", "forget-crashed"} {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

func defineERA(fs *flag.FlagSet) registry.Builder {
	f := bindERA(fs, 4)
	// The main job's default: any number of crashes, up to N-1 (the paper
	// assumes one process survives), at any step: 3 at the default N = 4.
	cr := fs.Lookup("crashes")
	cr.Usage = "crash budget F: at most this many processes crash, at any step, 0 … N-1 (default N-1: all but one)"
	cr.DefValue = "0"
	return func() (registry.Runner, error) {
		explicit := false
		fs.Visit(func(fl *flag.Flag) { explicit = explicit || fl.Name == "crashes" })
		if !explicit {
			f.crashes = f.n - 1
		}
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		if f.inputsSeed >= 0 {
			// One input vector, as a simulation walk used: replay rebuilds
			// exactly the model the walk ran on.
			m, err := NewModel(p, [][][]core.Input{randomInputs(p, uint64(f.inputsSeed))})
			if err != nil {
				return nil, err
			}
			return registry.Erase(m, "era", f.own()), nil
		}
		if p.N > MaxCheckN {
			return nil, fmt.Errorf("--n %d: out of range 1 … %d for a check over every input vector (use --inputs-seed, or ftcheck simulate era for large N)", p.N, MaxCheckN)
		}
		vecs := 1
		for i := 0; i < p.N*p.Agreements; i++ {
			vecs *= p.Values
			if vecs > 1<<16 {
				return nil, fmt.Errorf("%d^(n·agreements) input vectors is too many: lower --values, --n or --agreements", p.Values)
			}
		}
		m, err := NewModel(p, AllInputVectors(p))
		if err != nil {
			return nil, err
		}
		return registry.Erase(m, "era", f.own()), nil
	}
}

// inputFor is process's call for agreement a with flag v: Agreement(v, a)
// under the and op; under the ulfm op AckAgree(v, a), Figure 3's
// MPIX_Comm_failure_ack then MPIX_Comm_agree(v) (lines 19–25), whose
// contribution is (v, S_p, S_p): the failures the caller has been told
// about, known and acknowledged (§1.1: failures "known and acknowledged by
// all participants before entering the agreement").
func inputFor(op erasm.Op, a, v uint64) core.Input {
	if op == erasm.ULFM {
		return erasm.AckAgree{A: a, Flag: v}
	}
	return erasm.Contribute{A: a, V: erasm.Flag(v)}
}

// AllInputVectors lists every schedule: each process calls Agreement(v, a)
// for a = 0 … Agreements-1, with every combination of v in 0 … Values-1.
func AllInputVectors(p Params) [][][]core.Input {
	var out [][][]core.Input
	k := p.N * p.Agreements
	digits := make([]int, k)
	for {
		s := make([][]core.Input, p.N)
		for r := 0; r < p.N; r++ {
			for a := 0; a < p.Agreements; a++ {
				s[r] = append(s[r], inputFor(p.Op, uint64(a), uint64(digits[r*p.Agreements+a])))
			}
		}
		out = append(out, s)
		i := 0
		for i < k && digits[i] == p.Values-1 {
			digits[i] = 0
			i++
		}
		if i == k {
			return out
		}
		digits[i]++
	}
}

// NewModel builds the environment for ERA nodes with the given schedules.
func NewModel(p Params, schedules [][][]core.Input) (*env.Model, error) {
	cfg := erasm.Config{N: p.N, Op: p.Op, GC: p.GC, Rebalance: p.Rebalance, Mutant: p.Mutant}.WithTree(p.Tree())
	if _, err := erasm.New(0, cfg); err != nil {
		return nil, err
	}
	var b strings.Builder
	// env.New appends n, crashes, lose-on-crash, blocking and fail.
	fmt.Fprintf(&b, "era topology=%v network=%v agreements=%d values=%d (contributions drawn from %s) op=%s (%s)",
		p.Tree(), p.Network, p.Agreements, p.Values, valueSet(p.Values), p.Op.Name(), opLegend(p.Op))
	if p.Rebalance {
		b.WriteString(" rebalance")
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	var rel func(*env.World, core.Rank, core.Rank) bool
	if ids, ok := scheduledAgreements(schedules); ok {
		rel = maySend(ids)
	}
	return env.New(env.Config{
		MaySend: rel,
		Name:    b.String(), N: p.N, Crashes: p.Crashes, Network: p.Network,
		Loss: p.Loss, Blocking: p.Blocking, ForgetCrashed: p.ForgetCrashed,
		NewNode: func(r core.Rank, n int) core.Machine {
			node, err := erasm.New(r, cfg)
			if err != nil {
				panic(err) // validated above with the same cfg
			}
			return node
		},
		Schedules: schedules, Fail: p.Fail, CrashProb: p.CrashProb,
		Properties: Properties(p.Op),
		Codec:      codec(cfg),
	})
}

// valueSet is the set contributions are drawn from, for model names:
// "{0}", "{0,1}", "{0,1,2}", "{0,…,v-1}".
func valueSet(v int) string {
	switch {
	case v <= 3:
		parts := make([]string, v)
		for i := range parts {
			parts[i] = strconv.Itoa(i)
		}
		return "{" + strings.Join(parts, ",") + "}"
	default:
		return fmt.Sprintf("{0,…,%d}", v-1)
	}
}

// opLegend says what the combine operation F is, for model names.
func opLegend(op erasm.Op) string {
	if op == erasm.ULFM {
		return "F = MPIX_Comm_agree: AND of the flags, union of the failures known, intersection of those acknowledged"
	}
	return "F = bitwise AND of the contributions"
}

// parseRanks reads "0,4,16-31".
func parseRanks(s string, n int) ([]core.Rank, error) {
	var out []core.Rank
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("--fail %q: %q is not a rank", s, part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("--fail %q: bad range %q", s, part)
			}
		}
		for r := a; r <= b; r++ {
			if r < 0 || r >= n {
				return nil, fmt.Errorf("--fail %q: rank %d out of range 0..%d", s, r, n-1)
			}
			out = append(out, core.Rank(r))
		}
	}
	return out, nil
}
