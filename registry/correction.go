package registry

import (
	"flag"
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/internal/mutant"
	"github.com/ftkernel/ftkernel/props"
	"github.com/ftkernel/ftkernel/statemachine/correction"
)

func init() {
	register(&Protocol{
		Name:     "correction",
		Doc:      "Corrected Tree broadcast (Küttler et al., PPoPP'19): tree dissemination + ring correction; root rank 0 never fails",
		Define:   defineCorrection,
		Mutants:  correctionMutants(),
		Simulate: simulateCorrection,
	})
}

// BcastValue is the value the root broadcasts in every model.
const BcastValue correction.Value = 42

// CorrectionParams are the parameters of a Corrected Tree model.
type CorrectionParams struct {
	P          int
	Tree       correction.Tree
	Correction correction.CorrectionKind
	Distance   int
	Start      correction.StartMode
	Delay      uint64
	Mutant     mutant.Name
	// Faults is the env crash budget: up to Faults non-root processes fail,
	// at any step (before or during the broadcast).
	Faults int
	// FaultsBeforeCorrection confines the failures to before the
	// synchronized start of correction (synchronized start only).
	FaultsBeforeCorrection bool
	// Compact: correction.Config.Compact (set for exhaustive checking).
	Compact bool
}

// correctionFlags binds the flags shared by check and simulate.
type correctionFlags struct {
	tree, corr, start, mut string
	k, d, p, L, o          int
	delay                  uint64
	fs                     *flag.FlagSet
}

func bindCorrection(fs *flag.FlagSet, P int) *correctionFlags {
	f := &correctionFlags{fs: fs}
	fs.StringVar(&f.tree, "tree", "binomial", "dissemination tree: binomial|binomial-inorder|kary|kary-inorder|lame|optimal")
	fs.IntVar(&f.k, "k", 2, "arity of kary trees, order of Lamé trees")
	fs.StringVar(&f.corr, "correction", "checked", "correction: opportunistic|optimized|checked|delayed|none")
	fs.IntVar(&f.d, "d", 4, "distance d of (optimized) opportunistic correction")
	fs.StringVar(&f.start, "start", "synchronized", "correction start: synchronized|overlapped")
	fs.IntVar(&f.p, "P", P, "number of processes (ranks 0..P-1, root 0)")
	fs.IntVar(&f.L, "L", 2, "LogP latency L (the optimal tree is built for it)")
	fs.IntVar(&f.o, "o", 1, "LogP overhead o (the optimal tree is built for it)")
	fs.Uint64Var(&f.delay, "delay", 4, "wait of delayed correction")
	fs.StringVar(&f.mut, "mutant", "", "test-only broken variant (see ftcheck list)")
	return f
}

// ParseTreeKind reads a --tree name.
func ParseTreeKind(s string) (correction.TreeKind, error) {
	for _, k := range []correction.TreeKind{correction.BinomialInterleaved, correction.BinomialInOrder,
		correction.KaryInterleaved, correction.KaryInOrder, correction.Lame, correction.Optimal} {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("--tree %q: want binomial, binomial-inorder, kary, kary-inorder, lame or optimal", s)
}

// ParseCorrectionKind reads a --correction name.
func ParseCorrectionKind(s string) (correction.CorrectionKind, error) {
	switch s {
	case "opportunistic":
		return correction.Opportunistic, nil
	case "optimized", "optimized-opportunistic":
		return correction.OptimizedOpportunistic, nil
	case "checked":
		return correction.Checked, nil
	case "delayed":
		return correction.Delayed, nil
	case "none":
		return correction.NoCorrection, nil
	}
	return 0, fmt.Errorf("--correction %q: want opportunistic, optimized, checked, delayed or none", s)
}

func (f *correctionFlags) params() (CorrectionParams, error) {
	p := CorrectionParams{P: f.p, Distance: f.d, Delay: f.delay, Mutant: mutant.Name(f.mut)}
	kind, err := ParseTreeKind(f.tree)
	if err != nil {
		return p, err
	}
	p.Tree = correction.Tree{Kind: kind, K: f.k, L: f.L, O: f.o}
	if p.Correction, err = ParseCorrectionKind(f.corr); err != nil {
		return p, err
	}
	switch f.start {
	case "synchronized":
		p.Start = correction.Synchronized
	case "overlapped":
		p.Start = correction.Overlapped
	default:
		return p, fmt.Errorf("--start %q: want synchronized or overlapped", f.start)
	}
	if p.P < 1 {
		return p, fmt.Errorf("--P %d: need at least one process", p.P)
	}
	if p.Mutant != mutant.None {
		ok := false
		for _, m := range correction.Mutants {
			ok = ok || m == p.Mutant
		}
		if !ok {
			return p, errUnknownMutant("correction", f.mut)
		}
		if p.Mutant == correction.MutantKaryHeapOrder {
			p.Tree.Mutant = p.Mutant
		}
	}
	return p, nil
}

// own lists the model flags, for traces.
func (f *correctionFlags) own(extra ...string) map[string]string {
	out := map[string]string{}
	for _, name := range append([]string{"tree", "k", "correction", "d", "start", "P", "L", "o", "delay", "mutant"}, extra...) {
		out[name] = f.fs.Lookup(name).Value.String()
	}
	return out
}

// Config builds the shared node configuration.
func (p CorrectionParams) Config() (*correction.Config, error) {
	top, err := correction.NewTopology(p.Tree, p.P)
	if err != nil {
		return nil, err
	}
	cfg := &correction.Config{Topology: top, Correction: p.Correction, Distance: p.Distance,
		Start: p.Start, Delay: p.Delay, Mutant: p.Mutant, Compact: p.Compact}
	return cfg, cfg.Validate()
}

func defineCorrection(fs *flag.FlagSet) Builder {
	f := bindCorrection(fs, 6)
	faults := fs.Int("faults", 1, "crash budget F: up to F non-root processes fail, at any step (the root, rank 0, never fails: §2.1)")
	before := fs.Bool("faults-before-correction", false, "failures only before the synchronized start of correction (the guarantee of checked correction, §3.1/§4.2); needs --start synchronized")
	return func() (Runner, error) {
		p, err := f.params()
		if err != nil {
			return nil, err
		}
		p.Faults, p.FaultsBeforeCorrection, p.Compact = *faults, *before, true
		if p.P > 16 {
			return nil, fmt.Errorf("--P %d: exhaustive checking is for small P (use ftcheck simulate correction)", p.P)
		}
		m, err := NewCorrectionModel(p)
		if err != nil {
			return nil, err
		}
		return Erase(m, "correction", f.own("faults", "faults-before-correction")), nil
	}
}

// NewCorrectionModel builds the asynchronous environment for a Corrected
// Tree broadcast: the root calls Broadcast(42) once; with synchronized
// start the correction-start timer is a wakeup of the environment's
// synchronized clock, which arms it at every live process once the
// dissemination has settled (nothing else enabled); the root survives.
func NewCorrectionModel(p CorrectionParams) (*env.Model, error) {
	cfg, err := p.Config()
	if err != nil {
		return nil, err
	}
	if p.Faults < 0 || p.Faults >= p.P {
		return nil, fmt.Errorf("--faults %d: must be in 0..P-1 (the root never fails)", p.Faults)
	}
	syncStart := p.Start == correction.Synchronized && p.Correction != correction.NoCorrection
	if p.FaultsBeforeCorrection && !syncStart {
		return nil, fmt.Errorf("--faults-before-correction needs --start synchronized and a correction: overlapped correction starts during dissemination")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "correction tree=%v correction=%v start=%v", p.Tree, p.Correction, p.Start)
	switch p.Correction {
	case correction.Opportunistic, correction.OptimizedOpportunistic:
		fmt.Fprintf(&b, " d=%d", p.Distance)
	case correction.Delayed:
		fmt.Fprintf(&b, " delay=%d", p.Delay)
	}
	if p.Mutant != mutant.None {
		b.WriteString(" mutant=" + string(p.Mutant))
	}
	sched := make([][]core.Input, p.P)
	sched[0] = []core.Input{correction.Broadcast{Value: BcastValue}}
	ec := env.Config{
		Name: b.String(), N: p.P, Crashes: p.Faults,
		NewNode: func(r core.Rank, _ int) core.Machine {
			n, err := correction.New(cfg, r)
			if err != nil {
				panic(err) // validated above
			}
			return n
		},
		Schedules: [][][]core.Input{sched}, Survivors: []core.Rank{0}, NoDetector: true,
		CrashBeforeWakeup: p.FaultsBeforeCorrection,
		Properties:        props.Correction(),
	}
	if syncStart {
		ec.Wakeups = []uint64{correction.TimerStart}
	}
	return env.New(ec)
}

func correctionMutants() []MutantInfo {
	docs := map[mutant.Name]string{
		correction.MutantCheckedStopEarly:      "checked correction stops a direction at the first message from it, sent-to or not",
		correction.MutantKaryHeapOrder:         "k-ary tree in heap order (r·k+1 … r·k+k): a spanning tree, not interleaved",
		correction.MutantOpportunisticLeftOnly: "opportunistic correction sends only to the left",
	}
	out := make([]MutantInfo, 0, len(correction.Mutants))
	for _, m := range correction.Mutants {
		out = append(out, MutantInfo{Name: string(m), Doc: docs[m]})
	}
	return out
}
