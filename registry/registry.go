// Package registry is where models register for the command line and the
// test suites: each Protocol names its model, its flags, its properties and
// its mutants, and builds a type-erased Runner that the checker can explore.
// The models themselves live in models/<protocol> and call Register from
// their init; models/all imports every one of them. This package imports no
// model.
package registry

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"time"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/chart"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/checker/msc"
)

// PropInfo describes one property for `ftcheck list`.
type PropInfo struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	ExpectFail bool   `json:"expect_fail,omitempty"`
	Doc        string `json:"doc"`
}

// MutantInfo describes one broken variant.
type MutantInfo struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
}

// Protocol is one registered model family.
type Protocol struct {
	Name string
	Doc  string
	// Define declares the protocol's flags on fs and returns a builder that
	// makes the model once fs is parsed.
	Define func(fs *flag.FlagSet) Builder
	// Mutants lists the test-only broken variants (--mutant NAME).
	Mutants []MutantInfo
	// Simulate, when non-nil, runs the protocol's random-walk campaign
	// (ftcheck simulate) and returns its JSON-ready report.
	Simulate func(fs *flag.FlagSet) SimBuilder
	// ShardsSimulate declares that Simulate's campaigns consult the run
	// log (RunLog), so that ftcheck simulate --shard K/N may split them by
	// run index; ftcheck refuses --shard for the other models before
	// running anything.
	ShardsSimulate bool
}

// Builder makes a model from parsed flags.
type Builder func() (Runner, error)

// SimBuilder runs a simulation from parsed flags; progress lines go to the
// callback. When ctx is canceled (ftcheck simulate on SIGINT or SIGTERM)
// the simulation stops soon and returns the report of the runs done, with
// SimReport.Interrupted set; a simulation that cannot stop early runs to
// its end and reports it whole.
type SimBuilder func(ctx context.Context, progress func(string)) (*SimReport, error)

// SimWalkOptions returns opt with ctx and a progress line ("progress: 12/100
// walks, 3400 steps, 1700 steps/s, 2.0s") every 2 s, for simulations by
// random walks.
func SimWalkOptions(ctx context.Context, progress func(string), opt checker.WalkOptions) checker.WalkOptions {
	opt.Context = ctx
	opt.Progress = func(p checker.WalkProgress) {
		rate := 0.0
		if p.Seconds > 0 {
			rate = float64(p.Steps) / p.Seconds
		}
		progress(fmt.Sprintf("progress: %d/%d walks, %d steps, %.0f steps/s, %.1fs", p.Done, p.Walks, p.Steps, rate, p.Seconds))
	}
	opt.ProgressEvery = 2 * time.Second
	return opt
}

// SimReport is what `ftcheck simulate` prints: the common keys and the
// protocol's own figures.
type SimReport struct {
	Model      string         `json:"model"`
	Mode       string         `json:"mode"`
	Seed       uint64         `json:"seed"`
	Seconds    float64        `json:"seconds"`
	Violations []ViolationRef `json:"violations"`
	Figures    map[string]any `json:"figures"`
	// Text is the human-readable report.
	Text string `json:"-"`
	// Trace is the first violation's trace, if any.
	Trace *checker.Trace `json:"-"`
	// Interrupted reports that the simulation stopped at its context's
	// cancellation: the figures cover the runs done.
	Interrupted bool `json:"-"`
}

// ViolationRef is one violation in a JSON summary.
type ViolationRef struct {
	Property  string `json:"property"`
	Steps     int    `json:"steps"`
	TraceFile string `json:"trace_file"`
	// Trace is the counterexample itself when it could not be written to
	// TraceFile (then empty).
	Trace *checker.Trace `json:"trace,omitempty"`
}

// Runner is a model with its state type erased.
type Runner interface {
	Name() string
	// Params are the flag values that rebuild this model (stored in traces).
	Params() map[string]string
	Properties() []PropInfo
	// Symmetric reports whether the model has a symmetry that
	// Options.Symmetry uses (checker.Symmetric or
	// checker.CanonicalEncoder); without one --symmetry has no effect.
	Symmetric() bool
	// BFS runs checker.Search: breadth-first unless opt.Mode says otherwise.
	BFS(opt checker.Options) *checker.Result
	Walk(opt checker.WalkOptions) *checker.WalkResult
	// Replay re-executes a trace; a *checker.ViolationError reports the
	// violation it reproduces.
	Replay(tr *checker.Trace) error
	Shrink(tr *checker.Trace) *checker.Trace
}

// Erase wraps a model as a Runner.
// params are the flag values that rebuild m; Erase adds ModelParam.
func Erase[S any](m checker.Model[S], protocol string, params map[string]string) Runner {
	params[ModelParam] = protocol
	if em, ok := any(m).(*env.Model); ok {
		return &envRunner{runner[*env.World]{m: em, params: params}, em}
	}
	if eb, ok := any(m).(EnvBacked); ok {
		return &envRunner{runner[*env.World]{m: eb, params: params}, eb.Env()}
	}
	return &runner[S]{m: m, params: params}
}

// EnvBacked is a model that wraps an *env.Model and adds to it without
// changing its worlds (a symmetry, say): Erase gives it the env runner's
// charts and EnvModel, which see the wrapped model.
type EnvBacked interface {
	checker.Model[*env.World]
	Env() *env.Model
}

// Charter is implemented by runners whose model is the message-passing
// environment: they can draw a trace as a message sequence chart.
type Charter interface {
	Chart(tr *checker.Trace) (msc.Chart, error)
}

// envRunner is the Runner of an *env.Model; it also draws charts.
type envRunner struct {
	runner[*env.World]
	env *env.Model
}

// Chart draws tr as a message sequence chart (chart.FromTrace).
func (r *envRunner) Chart(tr *checker.Trace) (msc.Chart, error) {
	return chart.FromTrace(r.env, tr)
}

type runner[S any] struct {
	m      checker.Model[S]
	params map[string]string
}

func (r *runner[S]) Name() string              { return r.m.Name() }
func (r *runner[S]) Params() map[string]string { return r.params }
func (r *runner[S]) Properties() []PropInfo    { return propInfos(r.m.Properties()) }
func (r *runner[S]) Symmetric() bool {
	_, canon := r.m.(checker.Symmetric[S])
	_, enc := r.m.(checker.CanonicalEncoder[S])
	return canon || enc
}
func (r *runner[S]) BFS(opt checker.Options) *checker.Result {
	res := checker.Search(r.m, opt)
	for _, tr := range res.Violations {
		tr.Params = r.params
	}
	return res
}
func (r *runner[S]) Walk(opt checker.WalkOptions) *checker.WalkResult {
	res := checker.Walk(r.m, opt)
	if res.Violation != nil {
		res.Violation.Params = r.params
	}
	return res
}
func (r *runner[S]) Replay(tr *checker.Trace) error {
	_, err := checker.Replay(r.m, tr)
	return err
}
func (r *runner[S]) Shrink(tr *checker.Trace) *checker.Trace {
	out := checker.Shrink(r.m, tr)
	if out != nil {
		out.Params = r.params
	}
	return out
}

func propInfos[S any](ps []checker.Property[S]) []PropInfo {
	out := make([]PropInfo, len(ps))
	for i, p := range ps {
		out[i] = PropInfo{Name: p.Name, Kind: p.Kind.String(), ExpectFail: p.ExpectFail, Doc: p.Doc}
	}
	return out
}

var protocols = map[string]*Protocol{}

// Register adds p; each model calls it from its init. It panics on a
// duplicate name (a programming error found at start-up).
func Register(p *Protocol) {
	if _, dup := protocols[p.Name]; dup {
		panic("registry: duplicate protocol " + p.Name)
	}
	protocols[p.Name] = p
}

// All lists the registered protocols by name.
func All() []*Protocol {
	out := make([]*Protocol, 0, len(protocols))
	for _, p := range protocols {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds a protocol by name.
func Lookup(name string) (*Protocol, error) {
	p, ok := protocols[name]
	if !ok {
		names := ""
		for _, q := range All() {
			names += " " + q.Name
		}
		return nil, fmt.Errorf("unknown model %q (known:%s)", name, names)
	}
	return p, nil
}

// Build makes the protocol's model from flag arguments such as
// ["--n", "4"]; it is how tests and replay rebuild a model.
func (p *Protocol) Build(args []string) (Runner, error) {
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(discard{})
	b := p.Define(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return b()
}

// ModelParam is the key under which a trace's Params name the protocol.
const ModelParam = "model"

// BuildParams rebuilds a model from the Params stored in a trace.
func (p *Protocol) BuildParams(params map[string]string) (Runner, error) {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		if k == ModelParam {
			continue
		}
		args = append(args, "--"+k+"="+params[k])
	}
	return p.Build(args)
}

// Properties lists the properties of the protocol's default model.
func (p *Protocol) Properties() ([]PropInfo, error) {
	r, err := p.Build(nil)
	if err != nil {
		return nil, err
	}
	return r.Properties(), nil
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

// FlagParams records the value of every flag in fs, for traces.
func FlagParams(fs *flag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) { out[f.Name] = f.Value.String() })
	return out
}

// ErrUnknownMutant is the error of --mutant NAME when model has no such
// mutant.
func ErrUnknownMutant(model, name string) error {
	return fmt.Errorf("--mutant %q: unknown %s mutant (see ftcheck list)", name, model)
}

// ErrMutantNotHere wraps the error of --mutant NAME when the model has the
// mutant, but not as configured by its other flags (vcube's mutants of the
// network model under --timing rounds): ftcheck check --mutants leaves it
// out of the table.
var ErrMutantNotHere = errors.New("a mutant of another configuration of the model")

// EnvModel returns the message-passing model behind r, if r was made by
// Erase from an *env.Model (tests drive such models with their own
// observers).
func EnvModel(r Runner) (*env.Model, bool) {
	er, ok := r.(*envRunner)
	if !ok {
		return nil, false
	}
	return er.env, true
}

type memoryBoundKey struct{}

// MemoryBound is the memory bound of a simulation: Bytes (0: none) and
// where the figure comes from ("--max-memory", or the machine's rule).
type MemoryBound struct {
	Bytes int64
	From  string
}

// WithMemoryBound returns ctx carrying b, for SimBuilders that estimate a
// large allocation before they make it.
func WithMemoryBound(ctx context.Context, b MemoryBound) context.Context {
	return context.WithValue(ctx, memoryBoundKey{}, b)
}

// MemoryBoundOf is the bound ctx carries (zero: none).
func MemoryBoundOf(ctx context.Context) MemoryBound {
	b, _ := ctx.Value(memoryBoundKey{}).(MemoryBound)
	return b
}

// CheckFits refuses a run that needs about need bytes up front when that
// passes the bound ctx carries: the error says what to lower (lower, e.g.
// "--P") or to raise --max-memory.
func CheckFits(ctx context.Context, need int64, lower string) error {
	b := MemoryBoundOf(ctx)
	if b.Bytes <= 0 || need <= b.Bytes {
		return nil
	}
	return fmt.Errorf("needs about %d MiB, the memory bound is %d MiB (from %s); lower %s or raise --max-memory", (need+1<<20-1)>>20, b.Bytes>>20, b.From, lower)
}
