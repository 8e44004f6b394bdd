package correction

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/ftkernel/ftkernel/core"
)

// TestPaperScenarios runs the paper's step-by-step examples written as
// scripts in testdata/*.txt (github.com/cockroachdb/datadriven, as etcd
// raft does), so that they read without the Go code. Regenerate the
// expected output with
//
//	go test ./statemachine/correction -run TestPaperScenarios -rewrite
//
// and review the diff. Commands:
//
//	tree KIND P=n [k=n] [quiet]
//	                         build the tree (binomial, binomial-inorder, kary,
//	                         kary-inorder, lame) and print every rank's
//	                         children, in send order (not if quiet)
//	config correction=C [d=n] [start=S] [delay=n] [early=E]
//	                         new nodes over the tree: C is none,
//	                         opportunistic, optimized, checked or delayed; S
//	                         synchronized (default) or overlapped; E forwards
//	                         (default) or silent; flags: cover (flogsim's
//	                         cover stop rule, Config.CoverStop), no-over-root
//	                         (flogsim's cut ring, Config.NoOverRoot)
//	fail r…                  processes r… fail: what is sent to them is lost
//	broadcast [v=n]          the root's Broadcast call (v = 7 by default)
//	deliver from=q to=p tree|left|right [v=n]
//	                         p receives from q a TREE message, or a
//	                         correction message sent to the left or the right
//	start p…                 the synchronized start (TimerStart) at p… (all
//	                         live processes if none is named)
//	slots p                  fire p's send slot while it is armed
//	run                      drive everything to the end: pending send slots
//	                         first, then messages in the order sent, then (once
//	                         nothing is pending) the synchronized start, then
//	                         delay timers; prints the outcome
//	state p                  p's state
//
// A step prints what the process does: "p23: send CORRECTION(dir=left, v=7)
// to p22", "deliver 7", "arm send slot"; sends to failed processes are
// marked "(lost)". Sends are queued for run.
func TestPaperScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		s := &scenario{}
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			out, err := s.do(td)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return out
		})
	})
}

// scenario is the state of one script: a tree, nodes, failed processes,
// the messages in flight (in send order) and the armed timers.
type scenario struct {
	top    *Topology
	cfg    *Config
	nodes  []*Node
	failed core.RankSet
	flight []envelope
	slots  []core.Rank    // send slots armed, in arming order
	delays []core.Rank    // delay timers armed, in arming order
	sent   map[string]int // messages sent by kind
}

type envelope struct {
	from, to core.Rank
	msg      core.Message
}

func (s *scenario) do(td *datadriven.TestData) (string, error) {
	switch td.Cmd {
	case "tree":
		return s.tree(td)
	case "config":
		return s.config(td)
	}
	if s.nodes == nil {
		return "", fmt.Errorf("%s before config", td.Cmd)
	}
	var b strings.Builder
	switch td.Cmd {
	case "fail":
		for _, a := range td.CmdArgs {
			r, err := s.rank(a.Key)
			if err != nil {
				return "", err
			}
			s.failed.Add(r)
		}
		return fmt.Sprintf("failed: %v\n", s.failed), nil
	case "broadcast":
		v := intArg(td, "v", 7)
		return s.step(0, core.Call(Broadcast{Value: Value(v)}), &b)
	case "deliver":
		return s.deliver(td, &b)
	case "start":
		ranks, err := s.ranks(td)
		if err != nil {
			return "", err
		}
		for _, p := range ranks {
			if _, err := s.step(p, core.Timer(TimerStart), &b); err != nil {
				return "", err
			}
		}
		return b.String(), nil
	case "slots":
		ranks, err := s.ranks(td)
		if err != nil || len(ranks) != 1 {
			return "", fmt.Errorf("slots wants one rank (%v)", err)
		}
		for i := 0; i < 4*len(s.nodes) && slices.Contains(s.slots, ranks[0]); i++ {
			s.slots = slices.DeleteFunc(s.slots, func(r core.Rank) bool { return r == ranks[0] })
			if _, err := s.step(ranks[0], core.Timer(TimerSendSlot), &b); err != nil {
				return "", err
			}
		}
		return b.String(), nil
	case "run":
		return s.run()
	case "state":
		ranks, err := s.ranks(td)
		if err != nil {
			return "", err
		}
		for _, p := range ranks {
			n := s.nodes[p]
			fmt.Fprintf(&b, "%v: %v sent=%d\n", p, n, n.Sent())
		}
		return b.String(), nil
	}
	return "", fmt.Errorf("unknown command %q", td.Cmd)
}

func (s *scenario) tree(td *datadriven.TestData) (string, error) {
	if len(td.CmdArgs) == 0 {
		return "", fmt.Errorf("tree KIND P=n [k=n]")
	}
	var tr Tree
	for _, k := range []TreeKind{BinomialInterleaved, BinomialInOrder, KaryInterleaved, KaryInOrder, Lame} {
		if k.String() == td.CmdArgs[0].Key {
			tr.Kind = k
		}
	}
	if tr.Kind == 0 {
		return "", fmt.Errorf("unknown tree %q", td.CmdArgs[0].Key)
	}
	tr.K = intArg(td, "k", 2)
	top, err := NewTopology(tr, intArg(td, "P", 8))
	if err != nil {
		return "", err
	}
	s.top, s.nodes = top, nil
	var b strings.Builder
	if td.HasArg("quiet") {
		return fmt.Sprintf("P=%d tree=%v\n", top.P(), tr), nil
	}
	for r := 0; r < top.P(); r++ {
		if kids := top.Children(core.Rank(r)); len(kids) > 0 {
			fmt.Fprintf(&b, "%v → %v\n", core.Rank(r), strings.Trim(fmt.Sprint(kids), "[]"))
		}
	}
	return b.String(), nil
}

func (s *scenario) config(td *datadriven.TestData) (string, error) {
	if s.top == nil {
		return "", fmt.Errorf("config before tree")
	}
	cfg := &Config{Topology: s.top, Distance: intArg(td, "d", 0), Delay: uint64(intArg(td, "delay", 0))}
	for _, a := range td.CmdArgs {
		switch {
		case len(a.Vals) == 0 && a.Key == "cover":
			cfg.CoverStop = true
		case len(a.Vals) == 0 && a.Key == "no-over-root":
			cfg.NoOverRoot = true
		}
		if len(a.Vals) != 1 {
			continue
		}
		switch v := a.Vals[0]; a.Key {
		case "correction":
			found := false
			for _, c := range []CorrectionKind{NoCorrection, Opportunistic, OptimizedOpportunistic, Checked, Delayed} {
				if c.String() == v || c == OptimizedOpportunistic && v == "optimized" {
					cfg.Correction, found = c, true
				}
			}
			if !found {
				return "", fmt.Errorf("unknown correction %q", v)
			}
		case "start":
			if v != Synchronized.String() && v != Overlapped.String() {
				return "", fmt.Errorf("unknown start %q", v)
			}
			if v == Overlapped.String() {
				cfg.Start = Overlapped
			}
		case "early":
			if v != EarlyForwards.String() && v != EarlySilent.String() {
				return "", fmt.Errorf("unknown early rule %q", v)
			}
			if v == EarlySilent.String() {
				cfg.Early = EarlySilent
			}
		}
	}
	ms, err := Nodes(cfg)
	if err != nil {
		return "", err
	}
	*s = scenario{top: s.top, cfg: cfg, sent: map[string]int{}}
	for _, m := range ms {
		s.nodes = append(s.nodes, m.(*Node))
	}
	flogsim := ""
	if cfg.CoverStop {
		flogsim += " cover"
	}
	if cfg.NoOverRoot {
		flogsim += " no-over-root"
	}
	return fmt.Sprintf("P=%d tree=%v correction=%v start=%v early=%v%s\n", s.top.P(), s.top.Tree(), cfg.Correction, cfg.Start, cfg.Early, flogsim), nil
}

func (s *scenario) deliver(td *datadriven.TestData, b *strings.Builder) (string, error) {
	from, to := intArg(td, "from", -1), intArg(td, "to", -1)
	var m *Msg
	v := Value(intArg(td, "v", 7))
	switch {
	case td.HasArg("tree"):
		m = NewTreeMsg(v)
	case td.HasArg("left"):
		m = NewCorrectionMsg(v, Left)
	case td.HasArg("right"):
		m = NewCorrectionMsg(v, Right)
	default:
		return "", fmt.Errorf("deliver wants tree, left or right")
	}
	p, err := s.rank(strconv.Itoa(to))
	if err != nil {
		return "", err
	}
	return s.step(p, core.Receive(core.Rank(from), m), b)
}

// step steps p with ev and prints what it did.
func (s *scenario) step(p core.Rank, ev core.Event, b *strings.Builder) (string, error) {
	if s.failed.Has(p) {
		return "", fmt.Errorf("%v has failed", p)
	}
	out, err := s.nodes[p].Step(ev, nil)
	if err != nil {
		return "", err
	}
	var did []string
	for _, e := range out {
		switch e.Kind {
		case core.EffSend:
			s.sent[e.Msg.Kind()]++
			if s.failed.Has(e.To) {
				did = append(did, fmt.Sprintf("send %v to %v (lost)", e.Msg, e.To))
				continue
			}
			s.flight = append(s.flight, envelope{p, e.To, e.Msg})
			did = append(did, fmt.Sprintf("send %v to %v", e.Msg, e.To))
		case core.EffDeliver:
			did = append(did, fmt.Sprintf("deliver %v", e.Value))
		case core.EffSetTimer:
			switch e.Timer {
			case TimerSendSlot:
				s.slots = append(s.slots, p)
				did = append(did, "arm send slot")
			case TimerDelay:
				s.delays = append(s.delays, p)
				did = append(did, fmt.Sprintf("arm delay (%d)", e.Delay))
			}
		}
	}
	if len(did) == 0 {
		did = []string{"nothing"}
	}
	for _, d := range did {
		fmt.Fprintf(b, "%v: %s\n", p, d)
	}
	return b.String(), nil
}

// run drives the broadcast to its end (see TestPaperScenarios) without
// printing the steps, and prints the outcome.
func (s *scenario) run() (string, error) {
	var sink strings.Builder
	started := s.cfg.Start != Synchronized || s.cfg.Correction == NoCorrection
	for i := 0; i < 1_000_000; i++ {
		switch {
		case len(s.slots) > 0:
			p := s.slots[0]
			s.slots = s.slots[1:]
			if _, err := s.step(p, core.Timer(TimerSendSlot), &sink); err != nil {
				return "", err
			}
		case len(s.flight) > 0:
			m := s.flight[0]
			s.flight = s.flight[1:]
			if _, err := s.step(m.to, core.Receive(m.from, m.msg), &sink); err != nil {
				return "", err
			}
		case !started:
			started = true
			for p := range s.nodes {
				if !s.failed.Has(core.Rank(p)) {
					if _, err := s.step(core.Rank(p), core.Timer(TimerStart), &sink); err != nil {
						return "", err
					}
				}
			}
		case len(s.delays) > 0:
			p := s.delays[0]
			s.delays = s.delays[1:]
			if _, err := s.step(p, core.Timer(TimerDelay), &sink); err != nil {
				return "", err
			}
		default:
			return s.outcome(), nil
		}
	}
	return "", fmt.Errorf("run did not end")
}

// outcome lists the live processes by how they were colored, and the
// messages sent.
func (s *scenario) outcome() string {
	by := map[Via][]core.Rank{}
	live := 0
	for _, n := range s.nodes {
		if !s.failed.Has(n.Rank()) {
			live++
			by[n.Via()] = append(by[n.Via()], n.Rank())
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "live: %d, uncolored: %d\n", live, len(by[Uncolored]))
	for _, v := range []Via{ViaRoot, ViaTree, ViaCorrection, Uncolored} {
		if rs := by[v]; len(rs) > 0 {
			fmt.Fprintf(&b, "%v: %s\n", v, strings.Trim(fmt.Sprint(rs), "[]"))
		}
	}
	fmt.Fprintf(&b, "messages: %d (TREE %d, CORRECTION %d)\n", s.sent[KindTree]+s.sent[KindCorrection], s.sent[KindTree], s.sent[KindCorrection])
	return b.String()
}

func (s *scenario) rank(a string) (core.Rank, error) {
	r, err := strconv.Atoi(a)
	if err != nil || !core.Rank(r).Valid(len(s.nodes)) {
		return 0, fmt.Errorf("bad rank %q", a)
	}
	return core.Rank(r), nil
}

// ranks are the command's bare arguments as ranks; none: every live one.
func (s *scenario) ranks(td *datadriven.TestData) ([]core.Rank, error) {
	var out []core.Rank
	for _, a := range td.CmdArgs {
		r, err := s.rank(a.Key)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		for p := range s.nodes {
			if !s.failed.Has(core.Rank(p)) {
				out = append(out, core.Rank(p))
			}
		}
	}
	return out, nil
}

func intArg(td *datadriven.TestData, key string, def int) int {
	a, ok := td.Arg(key)
	if !ok || len(a.Vals) != 1 {
		return def
	}
	v, err := strconv.Atoi(a.Vals[0])
	if err != nil {
		return def
	}
	return v
}
