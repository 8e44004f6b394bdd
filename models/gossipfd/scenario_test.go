package gossipfd

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/ftkernel/ftkernel/core"
	fd "github.com/ftkernel/ftkernel/statemachine/gossipfd"
)

// TestScenarios runs the paper scenarios of testdata/*.txt (datadriven, as
// etcd raft does), readable without the Go code. One command:
//
//	run variant=brr n=4 cleanup=4 [ping] [on-pong=withdraw] [routing=live] crash=0@8,1@8 rounds=40
//
// runs the round model (T_gossip = RoundTicks ticks, one-tick delays; a
// crash h@g stops host h before its round-g gossip) and prints every
// suspicion and declaration in order, "round g: pX suspects|declares pY
// (live|crashed)". Regenerate the expected output after a deliberate change
// with `go test ./models/gossipfd -run TestScenarios -rewrite`.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				d.Fatalf(t, "unknown command %q", d.Cmd)
			}
			c := fd.Config{TGossip: RoundTicks, PingTimeout: RoundTicks / 2}
			sc := SimConfig{DelayMin: 1, DelayMax: 1, Crash: map[core.Rank]uint64{}}
			for _, a := range d.CmdArgs {
				val := ""
				if len(a.Vals) > 0 {
					val = a.Vals[0]
				}
				num := func() int {
					x, err := strconv.Atoi(val)
					if err != nil {
						d.Fatalf(t, "%s=%q: %v", a.Key, val, err)
					}
					return x
				}
				switch a.Key {
				case "variant":
					v, err := fd.ParseVariant(val)
					if err != nil {
						d.Fatalf(t, "%v", err)
					}
					c.Variant = v
				case "n":
					c.N = num()
				case "cleanup":
					c.Cleanup = uint64(num())
				case "ping":
					c.Ping = true
				case "on-pong":
					c.OnPong = fd.PongWithdrawOnly
				case "routing":
					c.Routing = fd.RouteLive
				case "rounds":
					sc.Rounds = num()
				case "crash":
					for _, v := range a.Vals {
						for _, hg := range strings.Split(v, ",") {
							var h, g int
							if _, err := fmt.Sscanf(hg, "%d@%d", &h, &g); err != nil {
								d.Fatalf(t, "crash %q: want host@round", hg)
							}
							sc.Crash[core.Rank(h)] = uint64(g) * RoundTicks
						}
					}
				default:
					d.Fatalf(t, "unknown argument %q", a.Key)
				}
			}
			sc.Node = c
			r, err := Simulate(sc)
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			type line struct {
				tick uint64
				s    string
			}
			var out []line
			state := func(e Event) string {
				if sc.Live(e.X, e.Tick) {
					return "live"
				}
				return "crashed"
			}
			for _, e := range r.Suspicions {
				out = append(out, line{e.Tick, fmt.Sprintf("round %d: %v suspects %v (%s)", e.Round, e.By, e.X, state(e))})
			}
			for _, e := range r.Declarations {
				out = append(out, line{e.Tick, fmt.Sprintf("round %d: %v declares %v (%s)", e.Round, e.By, e.X, state(e))})
			}
			var b strings.Builder
			for i := range out {
				for j := i; j > 0 && out[j].tick < out[j-1].tick; j-- {
					out[j], out[j-1] = out[j-1], out[j]
				}
			}
			for _, l := range out {
				b.WriteString(l.s + "\n")
			}
			fmt.Fprintf(&b, "pings+pongs: %d\n", r.Pings)
			return b.String()
		})
	})
}
