package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
	"github.com/ftkernel/ftkernel/registry"
)

// validateHelp is the -h command that lists validate's flags.
const validateHelp = "ftcheck validate -h"

// rankTrace is one process's log as read back.
type rankTrace struct {
	header    netnode.Header
	recs      []netnode.Record
	truncated bool // the last line was cut short (a killed process) and dropped
	// starts[k] is the index in recs of incarnation k's first record
	// (starts[0] = 0): a restarted rank's logs follow each other
	// (run_restart.go, validate_restart.go).
	starts []int
}

// label names record i (0-based) of rank r's log by file and line.
func label(r, i int) string { return fmt.Sprintf("%s:%d", rankLog(r), i+2) }

// label names record i (0-based) of rank r's logs by file and line.
func (t *rankTrace) label(r, i int) string {
	k := t.incarnation(i)
	return fmt.Sprintf("%s:%d", incarnationLog(r, uint64(k)), i-t.starts[k]+2)
}

// cmdValidate replays a run's logs against the model they name: exit 0
// when every step is possible in the model, with the logged effects, and
// every property holds along the run; 1 naming the first line that is
// impossible or where a property fails; 2 on a directory that is not a
// run's trace (a missing or corrupt file, a corrupt line before the last).
func cmdValidate(args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON summary object")
	var dir string
	if len(args) > 0 && args[0] != "" && args[0][0] != '-' {
		dir, args = args[0], args[1:]
	}
	if err := parseFlags(fs, args, stdout, "validate", "ftcheck validate TRACE-DIR [--json]\n"+
		"merges the logs of ftcheck run --trace TRACE-DIR into one causally consistent order and replays it against\n"+
		"the model named in run.json (same flags and mutant), each killed rank crashing after its last logged step;\n"+
		"exit 1 names the first line that is impossible in the model or where a property fails; 2: not a run's trace"); err != nil {
		return err
	}
	rest := fs.Args()
	if dir == "" && len(rest) > 0 {
		dir, rest = rest[0], rest[1:]
	}
	if len(rest) > 0 {
		return usageFor(validateHelp, "validate: unexpected argument %q", rest[0])
	}
	if dir == "" {
		return usageFor(validateHelp, "validate: name a trace directory (ftcheck run --trace DIR)")
	}
	verdict, name, err := validateDir(dir)
	if err != nil {
		return err
	}
	verdicts := []*validateReport{verdict}
	names := []string{name}
	if verdict.Detector == "ringfd" || verdict.Detector == "gossipfd" {
		// The heartbeat detector's own trace, against its own model.
		fd, fdName, err := validateDir(filepath.Join(dir, detectorDir))
		if err != nil {
			return err
		}
		verdicts, names = append(verdicts, fd), append(names, fdName)
	}
	ok := true
	for i, v := range verdicts {
		if *asJSON {
			if err := json.NewEncoder(stdout).Encode(v); err != nil {
				return err
			}
		} else {
			v.print(stdout, names[i])
		}
		ok = ok && v.OK
	}
	if !ok {
		return errViolation
	}
	return nil
}

// validateDir validates one trace directory: its report and the model's
// name, or a usage error (exit 2) when dir is not a run's trace.
func validateDir(dir string) (*validateReport, string, error) {
	var h runHeader
	b, err := os.ReadFile(filepath.Join(dir, runHeaderFile))
	if err == nil {
		err = json.Unmarshal(b, &h)
	}
	if err != nil {
		return nil, "", usageFor(validateHelp, "validate %s: %v", dir, err)
	}
	p, err := registry.Lookup(h.Model)
	if err != nil {
		return nil, "", usageFor(validateHelp, "validate %s: %v", dir, err)
	}
	r, err := p.BuildParams(h.Params)
	if err == nil {
		r, err = runnerFor(runScenarios[h.Model], r)
	}
	if err != nil {
		return nil, "", usageFor(validateHelp, "validate %s: cannot rebuild the model: %v", dir, err)
	}
	em, ok := registry.EnvModel(r)
	if !ok || len(em.Init()) != 1 || em.N() != h.N {
		return nil, "", usageFor(validateHelp, "validate %s: the model as rebuilt is not the run's", dir)
	}
	logs := make([]*rankTrace, h.N)
	lines := 0
	for q := range h.N {
		if logs[q], err = readRankTraces(dir, q, &h); err != nil {
			return nil, "", usageFor(validateHelp, "validate %s: %v", dir, err)
		}
		lines += len(logs[q].recs)
	}
	killed := map[int]bool{}
	for _, k := range h.Kills {
		if k.Done {
			killed[int(k.Rank)] = true
		}
	}

	var unchecked int
	var cut uint64
	if em.Config().Timing == env.BoundedDelay {
		if cut, unchecked, err = lastFullTick(logs, killed, h.StopTicks); err != nil {
			return nil, "", usageFor(validateHelp, "validate %s: %v", dir, err)
		}
	}
	mg := merge(em, logs, killed)
	verdict := &validateReport{Dir: dir, Model: h.Model, Params: h.Params, N: h.N, Lines: lines, Steps: len(mg.steps), Properties: []string{},
		Unchecked: unchecked, Ticks: mg.ticks, Cut: cut}
	for _, pi := range r.Properties() {
		if !pi.ExpectFail {
			verdict.Properties = append(verdict.Properties, pi.Name)
		}
	}
	for q, l := range logs {
		if l.truncated {
			verdict.Truncated = append(verdict.Truncated, rankLog(q))
		}
	}
	verdict.Killed = slices.Sorted(maps.Keys(killed))
	for q, l := range logs {
		if len(l.starts) > 1 {
			verdict.Restarted = append(verdict.Restarted, q)
		}
	}
	// The properties along the steps that merged, up to a divergence.
	tr := &checker.Trace{Model: r.Name(), Params: r.Params(), Steps: mg.steps}
	rerr := r.Replay(tr)
	var ve *checker.ViolationError
	switch {
	case errors.As(rerr, &ve):
		k := ve.Violation.Steps
		where := "the initial state"
		if k > 0 {
			where = mg.labels[k-1]
		}
		verdict.FirstBad = where
		verdict.Problem = fmt.Sprintf("%s (step %d): %s", where, k, ve.Violation.String())
	case rerr != nil:
		return nil, "", fmt.Errorf("validate %s: replaying the merged steps: %w", dir, rerr)
	case mg.bad != "":
		verdict.FirstBad = mg.badLabel
		verdict.Problem = fmt.Sprintf("%s (step %d): %s", mg.badLabel, len(mg.steps)+1, mg.bad)
	}
	if sc := runScenarios[h.Model]; sc.replay != nil && verdict.Problem == "" {
		line, err := sc.replay(h.Params, mg.steps)
		if err != nil {
			verdict.Problem = fmt.Sprintf("the merged steps replayed on the checked model: %v", err)
		}
		verdict.Replayed = line
	}
	verdict.OK = verdict.Problem == ""
	verdict.Detector = h.Detector
	return verdict, r.Name(), nil
}

// readRankTrace reads rank q's log: the header, then records numbered 1, 2,
// … A last line without its newline (a killed process's) is dropped; any
// other line that does not decode is an error.
func readRankTrace(path string, q int, h *runHeader) (*rankTrace, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t := &rankTrace{}
	parts := bytes.Split(b, []byte{'\n'})
	if last := parts[len(parts)-1]; len(last) > 0 {
		t.truncated = true
	}
	parts = parts[:len(parts)-1]
	if len(parts) == 0 {
		return nil, fmt.Errorf("%s: no header line", rankLog(q))
	}
	var hd struct {
		Header *netnode.Header `json:"header"`
	}
	if err := strictJSON(parts[0], &hd); err != nil || hd.Header == nil {
		return nil, fmt.Errorf("%s:1: not a log header (%v)", rankLog(q), err)
	}
	t.header = *hd.Header
	var meta nodeMeta
	if err := json.Unmarshal(t.header.Meta, &meta); err != nil || meta.Model != h.Model || !maps.Equal(meta.Params, h.Params) ||
		int(t.header.Rank) != q || t.header.N != h.N {
		return nil, fmt.Errorf("%s:1: the header is not of rank %d of this run's model %s", rankLog(q), q, h.Model)
	}
	for i, line := range parts[1:] {
		var rec netnode.Record
		if err := strictJSON(line, &rec); err != nil {
			return nil, fmt.Errorf("%s: corrupt line: %v", label(q, i), err)
		}
		if rec.Seq != uint64(i+1) {
			return nil, fmt.Errorf("%s: sequence number %d, want %d", label(q, i), rec.Seq, i+1)
		}
		t.recs = append(t.recs, rec)
	}
	return t, nil
}

func strictJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("trailing data")
	}
	return nil
}

// merged is the logs merged into the model's steps.
type merged struct {
	steps  []checker.Step
	labels []string // the line (or crash) each step comes from
	// bad says why the next line cannot be a step of the model (empty when
	// every line merged), badLabel which line it is.
	bad, badLabel string
	ticks         uint64 // under bounded delay, the model's tick at the end
}

// lastFullTick, for a run in ticks, drops every line from the tick in
// which the first live process stopped on (stopTicks, as the processes
// said; without it, the tick of its last line): a process stops at its
// own moment, maybe in the middle of a tick, and the model could not
// advance past a tick whose due steps were never taken. It returns that tick and
// how many lines it dropped; a line without a tick is an error.
func lastFullTick(logs []*rankTrace, killed map[int]bool, stopTicks []int64) (uint64, int, error) {
	cut := uint64(math.MaxUint64)
	for q, l := range logs {
		for i, r := range l.recs {
			if r.Tick == nil {
				return 0, 0, fmt.Errorf("%s: no tick in a run of a bounded-delay model", label(q, i))
			}
		}
		if killed[q] {
			continue
		}
		last := uint64(0)
		switch {
		case q < len(stopTicks) && stopTicks[q] >= 0: // the tick it stopped in, logged or silent
			last = uint64(stopTicks[q])
		case len(l.recs) > 0:
			last = *l.recs[len(l.recs)-1].Tick
		}
		cut = min(cut, last)
	}
	dropped := 0
	for _, l := range logs {
		k := len(l.recs)
		for k > 0 && (cut == 0 || *l.recs[k-1].Tick >= cut) {
			k--
		}
		dropped += len(l.recs) - k
		l.recs = l.recs[:k]
	}
	return cut, dropped, nil
}

// merge orders the logs' lines causally and turns each into the model's
// action, checking that the action is enabled and that its effects are the
// logged ones. A line is ready when it is its process's next one and, for
// a receive, its message's send has been placed (the k-th message p
// receives from q is the k-th q sent to p: one FIFO connection), for a
// suspicion of q, q's crash has; among the ready lines the one with the
// smallest (Lamport clock, rank) goes first. A killed rank crashes right
// after its last logged step: nothing it did is logged after, so this is
// where it died for the protocol.
func merge(m *env.Model, logs []*rankTrace, killed map[int]bool) *merged {
	n := len(logs)
	out := &merged{}
	s := m.Init()[0]
	next := make([]int, n)
	crashed := map[int]bool{} // down now
	rs := newRestartMerge(logs, killed)
	timed := m.Config().Timing == env.BoundedDelay
	tickOf := func(r netnode.Record) uint64 {
		if timed {
			return *r.Tick
		}
		return 0
	}
	var buf []checker.Action
	take := func(a checker.Action, lab string) ([]core.Effect, string) {
		buf = m.Actions(s, buf[:0])
		if !slices.Contains(buf, a) {
			return nil, fmt.Sprintf("%s is not enabled in the model here", describeAction(a))
		}
		next, err := m.Apply(s, a)
		if err != nil {
			return nil, fmt.Sprintf("%s fails in the model: %v", describeAction(a), err)
		}
		out.steps = append(out.steps, checker.Step{Action: a, KindName: m.KindName(a.Kind), Text: lab})
		out.labels = append(out.labels, lab)
		s = next
		return next.LastEffects(), ""
	}
	fail := func(lab, why string) *merged {
		out.bad, out.badLabel = why, lab
		return out
	}
	for {
		for q := range n {
			if !crashed[q] && rs.crashDue(q, next[q]) {
				lab := fmt.Sprintf("the crash of p%d after its last line", q)
				if next[q] > 0 {
					lab = fmt.Sprintf("the crash of p%d after %s", q, logs[q].label(q, next[q]-1))
				}
				if _, why := take(checker.Action{Kind: env.Crash, P: int32(q)}, lab); why != "" {
					return fail(lab, why)
				}
				crashed[q] = true
				rs.crashes[q]++
			}
		}
		best := -1
		var bestRec netnode.Record
		first := -1 // the earliest line not yet placed, ready or not
		for q := range n {
			if next[q] == len(logs[q].recs) {
				continue
			}
			rec := logs[q].recs[next[q]]
			if first < 0 || rec.Clock < logs[first].recs[next[first]].Clock {
				first = q
			}
			ready := rs.sendsReady(rec)
			switch rec.Event.Kind {
			case "receive":
				from := int(rec.Event.Peer)
				ready = ready && rs.received(from, q, next[q], false)
			case "suspect":
				ready = ready && crashed[int(rec.Event.Peer)]
			case "restart":
				ready = ready && crashed[q] && rs.restartReady(m, s, q, next[q], next)
			case "recovered":
				ready = ready && slices.Contains(m.Actions(s, nil), checker.Action{Kind: env.DetectRecover, P: int32(q), Q: rec.Event.Peer})
			}
			if ready && (best < 0 || tickOf(rec) < tickOf(bestRec) || tickOf(rec) == tickOf(bestRec) && rec.Clock < bestRec.Clock) {
				best, bestRec = q, rec
			}
		}
		if first < 0 {
			return out
		}
		if best < 0 {
			rec := logs[first].recs[next[first]]
			why := fmt.Sprintf("%s cannot be placed: ", rec.Event.Text)
			switch {
			case !rs.sendsReady(rec):
				why += "it sends to an incarnation of a process that never restarted as it"
			case rec.Event.Kind == "suspect":
				why += fmt.Sprintf("p%d was never killed", rec.Event.Peer)
			case rec.Event.Kind == "restart", rec.Event.Kind == "recovered":
				why += "the model does not allow the restart here (a live process not told of the crash, a send to the dead process still to be placed, or no restart)"
			default:
				why += fmt.Sprintf("p%d logged no such send to p%d", rec.Event.Peer, first)
			}
			return fail(logs[first].label(first, next[first]), why)
		}
		q, rec := best, bestRec
		lab := logs[q].label(q, next[q])
		for timed && out.ticks < *rec.Tick {
			if _, why := take(checker.Action{Kind: env.Tick}, fmt.Sprintf("tick %d → %d", out.ticks, out.ticks+1)); why != "" {
				return fail(lab, fmt.Sprintf("%s at tick %d: the model cannot advance from tick %d to %d: something is due there that no log shows "+
					"(a message at its delay bound Δ, a due timer or a call): %s", rec.Event.Text, *rec.Tick, out.ticks, out.ticks+1, why))
			}
			out.ticks++
		}
		if rec.Err != "" {
			return fail(lab, fmt.Sprintf("the machine refused %s: %s", rec.Event.Text, rec.Err))
		}
		var a checker.Action
		switch rec.Event.Kind {
		case "receive":
			from := rec.Event.Peer
			a = checker.Action{Kind: env.Deliver, P: int32(q), Q: from, I: -1}
			for i := int32(0); ; i++ {
				msg, ok := s.Message(checker.Action{Kind: env.Deliver, P: int32(q), Q: from, I: i})
				if !ok {
					break
				}
				if bytes.Equal(msg.AppendBinary(nil), rec.Event.Msg) {
					a.I = i
					break
				}
			}
			if a.I < 0 {
				why := fmt.Sprintf("%s: no such message from p%d to p%d is in flight in the model", rec.Event.Text, from, q)
				if rs.crashes[from] > 0 {
					why += fmt.Sprintf(" (%s)", lostSendHint(int(from), q))
				}
				return fail(lab, why)
			}
			rs.received(int(from), q, next[q], true)
		case "call":
			pend := s.PendingCalls(core.Rank(q))
			if len(pend) == 0 || !bytes.Equal(pend[0].AppendBinary([]byte{}), rec.Event.Input) {
				return fail(lab, fmt.Sprintf("%s is not p%d's next call in the model's schedule", rec.Event.Text, q))
			}
			a = checker.Action{Kind: env.Call, P: int32(q)}
		case "suspect":
			a = checker.Action{Kind: env.Detect, P: int32(q), Q: rec.Event.Peer}
		case "timer":
			a = checker.Action{Kind: env.Fire, P: int32(q), I: int32(rec.Event.Timer)}
		case "restart":
			a = checker.Action{Kind: env.Recover, P: int32(q)}
			crashed[q] = false
		case "recovered":
			a = checker.Action{Kind: env.DetectRecover, P: int32(q), Q: rec.Event.Peer}
		default:
			return fail(lab, fmt.Sprintf("event kind %q has no step in this model", rec.Event.Kind))
		}
		effs, why := take(a, lab)
		if why != "" {
			return fail(lab, fmt.Sprintf("%s: %s", rec.Event.Text, why))
		}
		if why := sameEffects(effs, rec.Effects); why != "" {
			out.steps, out.labels = out.steps[:len(out.steps)-1], out.labels[:len(out.labels)-1]
			return fail(lab, fmt.Sprintf("%s: the implementation diverged from the model: %s", rec.Event.Text, why))
		}
		rs.placed(q, rec)
		next[q]++
	}
}

// sameEffects compares the model's effects of a step with the logged ones.
func sameEffects(model []core.Effect, logged []netnode.EffectRecord) string {
	for i := range max(len(model), len(logged)) {
		switch {
		case i >= len(model):
			return fmt.Sprintf("it logged %q, which the model does not do", logged[i].Text)
		case i >= len(logged):
			return fmt.Sprintf("the model does %q, which it did not log", model[i].String())
		}
		if e := netnode.EncodeEffect(model[i]); !netnode.SameEffect(e, logged[i]) {
			return fmt.Sprintf("effect %d is %q in the log, %q in the model", i+1, logged[i].Text, e.Text)
		}
	}
	return ""
}

func describeAction(a checker.Action) string {
	switch a.Kind {
	case env.Deliver:
		return fmt.Sprintf("delivering message %d from p%d to p%d", a.I, a.Q, a.P)
	case env.Crash:
		return fmt.Sprintf("a crash of p%d", a.P)
	case env.Detect:
		return fmt.Sprintf("p%d learning that p%d is dead", a.P, a.Q)
	case env.Call:
		return fmt.Sprintf("p%d's next call", a.P)
	case env.Fire:
		return fmt.Sprintf("p%d's timer %d", a.P, a.I)
	}
	return env.KindName(a.Kind)
}

// validateReport is validate's summary.
type validateReport struct {
	Dir       string            `json:"dir"`
	Detector  string            `json:"detector,omitempty"` // the run's failure detector
	Model     string            `json:"model"`
	Params    map[string]string `json:"params"`
	N         int               `json:"n"`
	Lines     int               `json:"lines"`
	Steps     int               `json:"steps"`
	Killed    []int             `json:"killed"`
	Restarted []int             `json:"restarted,omitempty"`
	Truncated []string          `json:"truncated,omitempty"`
	// Under bounded delay: Ticks is the last tick replayed; Unchecked the
	// lines from tick Cut on, left out because some live process stopped
	// during or before it.
	Ticks      uint64   `json:"ticks,omitempty"`
	Cut        uint64   `json:"cut_tick,omitempty"`
	Unchecked  int      `json:"unchecked_lines,omitempty"`
	Properties []string `json:"properties"`
	// Replayed says how the merged steps replayed on the model the
	// protocol's check explores, when the scenario has a net model of
	// its own (hyperquicksort).
	Replayed string `json:"replayed_on_checked_model,omitempty"`
	OK       bool   `json:"ok"`
	FirstBad string `json:"first_bad_line,omitempty"`
	Problem  string `json:"problem,omitempty"`
}

func (v *validateReport) print(w io.Writer, name string) {
	fmt.Fprintf(w, "validate %s: %s\n", v.Dir, name)
	var killed []string
	for _, k := range v.Killed {
		killed = append(killed, fmt.Sprintf("p%d", k))
	}
	fmt.Fprintf(w, "%d logs, %d lines; killed: %s", v.N, v.Lines, strings.Join(append(killed, "none")[:max(1, len(killed))], ", "))
	for i, q := range v.Restarted {
		fmt.Fprintf(w, "%sp%d", map[bool]string{true: "; restarted: ", false: ", "}[i == 0], q)
	}
	if len(v.Truncated) > 0 {
		fmt.Fprintf(w, "; a cut-short last line dropped from %s", strings.Join(v.Truncated, ", "))
	}
	fmt.Fprintln(w)
	if v.Ticks > 0 || v.Unchecked > 0 {
		fmt.Fprintf(w, "in ticks: replayed up to tick %d; the %d lines from tick %d on, which some live process did not finish before it stopped, are not checked\n", v.Ticks, v.Unchecked, v.Cut)
	}
	if v.Detector == "ringfd" || v.Detector == "gossipfd" {
		fmt.Fprintf(w, "the suspicions are %s's notifications, each a detect step of the model, placed after the crash it reports\n", v.Detector)
	}
	if v.OK {
		fmt.Fprintf(w, "merged into %d steps in a causally consistent order: every step is enabled in the model and has the logged effects\n", v.Steps)
		fmt.Fprintf(w, "every checked property holds along the run: %s\n", strings.Join(v.Properties, ", "))
		if v.Replayed != "" {
			fmt.Fprintln(w, v.Replayed)
		}
		return
	}
	fmt.Fprintf(w, "validate: %s\n", v.Problem)
}
