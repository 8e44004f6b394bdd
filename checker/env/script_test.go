package env

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/core"
)

// TestBoundedDelayScripts runs the scenarios of testdata/bounded_delay
// (datadriven; go test -run TestBoundedDelayScripts -rewrite regenerates
// the outputs, which are then read against the comments). Commands:
//
//	new toy=pinger|hb [n=] [period=] [timeout=] [delta=] [crashes=] [fifo] [mute]
//	step            one action a line: call P | tick | deliver P Q I |
//	                lose P Q I | fire P I | crash P | detect P Q
//	world           the clock, messages in flight with their deadline
//	                offsets, armed timers with theirs, the enabled actions
//	check [props=a,b]  exhaustive search: counts and the counterexamples
func TestBoundedDelayScripts(t *testing.T) {
	datadriven.RunTest(t, "testdata/bounded_delay", func(t *testing.T, d *datadriven.TestData) string {
		return scriptCmd(t, d)
	})
}

var script struct {
	m *Model
	s *World
}

func scriptCmd(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "new":
		toy, period, timeout, delta, crashes, n := "pinger", uint64(0), uint64(0), 2, 0, 2
		fifo, mute := false, false
		for _, a := range d.CmdArgs {
			v := ""
			if len(a.Vals) > 0 {
				v = a.Vals[0]
			}
			num := func() int {
				x, err := strconv.Atoi(v)
				if err != nil {
					d.Fatalf(t, "%s=%q: %v", a.Key, v, err)
				}
				return x
			}
			switch a.Key {
			case "toy":
				toy = v
			case "n":
				n = num()
			case "period":
				period = uint64(num())
			case "timeout":
				timeout = uint64(num())
			case "delta":
				delta = num()
			case "crashes":
				crashes = num()
			case "fifo":
				fifo = true
			case "mute":
				mute = true
			default:
				d.Fatalf(t, "unknown argument %q", a.Key)
			}
		}
		var cfg Config
		switch toy {
		case "pinger":
			cfg = pingerConfig(n, period, delta)
		case "hb":
			cfg = hbConfig(period, timeout, delta, 0, mute)
		default:
			d.Fatalf(t, "unknown toy %q", toy)
		}
		cfg.Crashes = crashes
		if fifo {
			cfg.Network = FIFO
		}
		m, err := New(cfg)
		if err != nil {
			return err.Error()
		}
		script.m, script.s = m, m.Init()[0]
		return m.Name()
	case "step":
		var out []string
		for line := range strings.SplitSeq(strings.TrimSpace(d.Input), "\n") {
			a, err := parseAction(line)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			out = append(out, script.m.Describe(script.s, a))
			next, err := script.m.Apply(script.s, a)
			if err != nil {
				return strings.Join(out, "\n")
			}
			script.s = next
		}
		return strings.Join(out, "\n")
	case "world":
		return describeWorld(script.m, script.s)
	case "check":
		var opt checker.Options
		opt.Workers = 1
		if d.HasArg("props") {
			var props string
			d.ScanArgs(t, "props", &props)
			opt.Properties = strings.Split(props, ",")
		}
		r := checker.BFS[*World](script.m, opt)
		var b strings.Builder
		fmt.Fprintf(&b, "%d states, %d generated, complete=%v\n", r.States, r.Transitions, r.Complete)
		if r.Err != nil {
			fmt.Fprintf(&b, "error: %v\n", r.Err)
		}
		for _, tr := range r.Violations {
			b.WriteString(tr.String())
		}
		if len(r.Violations) == 0 {
			b.WriteString("all checked properties hold\n")
		}
		for _, bd := range r.Bounds {
			fmt.Fprintf(&b, "bound: %v\n", bd)
		}
		return b.String()
	}
	d.Fatalf(t, "unknown command %q", d.Cmd)
	return ""
}

// parseAction reads "call 0", "tick", "deliver 1 0 0", "fire 0 2", ….
func parseAction(line string) (checker.Action, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return checker.Action{}, fmt.Errorf("empty action")
	}
	kinds := map[string]uint8{"deliver": Deliver, "lose": Lose, "crash": Crash, "detect": Detect,
		"call": Call, "fire": Fire, "tick": Tick}
	k, ok := kinds[f[0]]
	if !ok {
		return checker.Action{}, fmt.Errorf("unknown action %q", f[0])
	}
	var ops [3]int32
	for i, s := range f[1:] {
		x, err := strconv.Atoi(s)
		if err != nil || i >= 3 {
			return checker.Action{}, fmt.Errorf("bad operand %q in %q", s, line)
		}
		ops[i] = int32(x)
	}
	a := checker.Action{Kind: k, P: ops[0]}
	switch k {
	case Deliver, Lose:
		a.Q, a.I = ops[1], ops[2]
	case Detect:
		a.Q = ops[1]
	case Fire:
		a.I = ops[1]
	}
	return a, nil
}

// describeWorld prints the clock, the messages in flight (deadline offset,
// open or closed window), the timers and the enabled actions.
func describeWorld(m *Model, s *World) string {
	var b strings.Builder
	fmt.Fprintf(&b, "tick %d", s.Now())
	if m.Quiescent(s) {
		b.WriteString(", quiescent")
	}
	b.WriteByte('\n')
	dl := s.Deadlines()
	for i, e := range s.InFlight() {
		window := "closed"
		if int(dl[i]) < m.cfg.Delta {
			window = "open"
		}
		if dl[i] == 0 {
			window = "due"
		}
		fmt.Fprintf(&b, "in flight: %v %v→%v, deadline +%d (%s)\n", e.Msg, e.From, e.To, dl[i], window)
	}
	for p := range core.Rank(s.N()) {
		due := s.TimerDeadlines(p)
		for i, id := range s.Timers(p) {
			fmt.Fprintf(&b, "timer: %v's %d, deadline +%d\n", p, id, due[i])
		}
	}
	var acts []string
	for _, a := range m.Actions(s, nil) {
		acts = append(acts, actionText(a))
	}
	fmt.Fprintf(&b, "enabled: %s", strings.Join(acts, ", "))
	return b.String()
}

// actionText is the script form of a (parseAction's inverse).
func actionText(a checker.Action) string {
	switch a.Kind {
	case Deliver, Lose:
		return fmt.Sprintf("%s %d %d %d", KindName(a.Kind), a.P, a.Q, a.I)
	case Detect:
		return fmt.Sprintf("detect %d %d", a.P, a.Q)
	case Fire:
		return fmt.Sprintf("fire %d %d", a.P, a.I)
	case Tick:
		return "tick"
	}
	return fmt.Sprintf("%s %d", KindName(a.Kind), a.P)
}
