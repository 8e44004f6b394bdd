package replica

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/ftkernel/ftkernel/core"
)

// TestScripts runs the paper's scenarios written as datadriven scripts
// (testdata/*.txt), readable without the Go code:
//
//	new program=NAME procs=P degrees=(d0,d1,…) [mutant=NAME]
//	start pI …        the Start call of each replica
//	fire pI           one PumpTimer firing (the next outbox message)
//	pump pI …         fire until the outbox is empty
//	deliver from=pI to=pJ   the first message in flight from pI to pJ
//	crash pI …        the replica stops; messages to it are dropped
//	notify pI         the failure detector reports pI to every live replica
//	drain             deliver everything in flight, pumping outboxes
//	show pI …         the replicas' state, deliveries and outputs
//
// Each command prints the effects of the steps it took. Rewrite the
// expected output with: go test ./statemachine/replica -run Scripts -rewrite
func TestScripts(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var c *cluster
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			if td.Cmd != "new" && c == nil {
				t.Fatalf("%s: no cluster (use new first)", td.Pos)
			}
			ranks := func() []core.Rank {
				var out []core.Rank
				for _, a := range td.CmdArgs {
					if r, err := strconv.Atoi(strings.TrimPrefix(a.Key, "p")); err == nil && strings.HasPrefix(a.Key, "p") {
						out = append(out, core.Rank(r))
					}
				}
				return out
			}
			if c != nil {
				c.t = t
				c.log = nil
			}
			switch td.Cmd {
			case "new":
				var name, mut string
				var procs int
				var degrees []int
				td.ScanArgs(t, "program", &name)
				td.ScanArgs(t, "procs", &procs)
				for _, a := range td.CmdArgs {
					if a.Key == "degrees" {
						for _, v := range a.Vals {
							d, err := strconv.Atoi(v)
							if err != nil {
								t.Fatal(err)
							}
							degrees = append(degrees, d)
						}
					}
				}
				if td.HasArg("mutant") {
					td.ScanArgs(t, "mutant", &mut)
				}
				progs, err := Programs(name, procs, 1)
				if err != nil {
					t.Fatal(err)
				}
				l, err := NewLayoutDegrees(degrees)
				if err != nil {
					t.Fatal(err)
				}
				c = newCluster(t, Config{Layout: l, Programs: progs, Mutant: mutantName(mut)})
				return l.String()
			case "start":
				for _, r := range ranks() {
					c.start(r)
				}
			case "fire":
				for _, r := range ranks() {
					c.step(r, core.Timer(PumpTimer))
				}
			case "pump":
				for _, r := range ranks() {
					c.pump(r)
				}
			case "deliver":
				var from, to string
				td.ScanArgs(t, "from", &from)
				td.ScanArgs(t, "to", &to)
				f, _ := strconv.Atoi(strings.TrimPrefix(from, "p"))
				g, _ := strconv.Atoi(strings.TrimPrefix(to, "p"))
				c.deliver(core.Rank(f), core.Rank(g))
			case "crash":
				for _, r := range ranks() {
					c.crash(r)
				}
				return "ok"
			case "notify":
				for _, r := range ranks() {
					c.notify(r)
				}
			case "drain":
				c.drain()
			case "show":
				var b strings.Builder
				for _, r := range ranks() {
					n := c.node(r)
					fmt.Fprintf(&b, "%v master=%v backup=%v log=%v history=%v\n", n, n.IsMaster(), n.Backup(), []MID(n.log), []MID(n.history))
					fmt.Fprintf(&b, "  delivered %v output %v\n", c.deliv[r], c.outs[r])
				}
				return b.String()
			default:
				t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
			}
			if len(c.log) == 0 {
				return "ok"
			}
			return strings.Join(c.log, "\n")
		})
	})
}
