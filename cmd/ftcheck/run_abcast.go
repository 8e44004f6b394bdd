package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"slices"
	"strconv"

	"github.com/ftkernel/ftkernel/core"
	ab "github.com/ftkernel/ftkernel/statemachine/abcast"
)

// abcastScenario is `ftcheck run abcast`: one broadcast round of Appendix
// A's atomic broadcast. Every core member broadcasts its --messages
// messages, one every --interval from the start; the perfect detector
// tells the survivors of each kill. Each process reports its deliveries in
// order, the k-th as instance k, so that comparing instances among the
// live processes compares their delivery orders (total order).
var abcastScenario = runScenario{
	doc: "one broadcast round of Appendix A: every core member broadcasts its --messages messages, one every --interval " +
		"from the start; p0, the sequencer (ub, bb) or the coordinator (consensus), is never killed; the perfect detector " +
		"tells the survivors of each kill; a process has finished once it delivered every message of every member not killed " +
		"and every message some process, killed or live, delivered; the k-th delivery of every live process is compared " +
		"(one total order); latency is from the start of the scenario",
	defaults:  [][2]string{{"core", "5"}, {"messages", "4"}, {"k", "5"}},
	crashFlag: "crashes",
	output:    core.EffDeliver,
	finish:    finishParent,
	label:     "delivery ",
	ordinal:   true,
	finished:  abcastFinished,
	flags:     abcastFlags,
}

// abcastFlags adds --n, the run's name for the model's --core (the size
// flag of the other scenarios), and refuses two model flags. The first is
// --crash-sequencer: with p0 dead nothing is ordered any more
// (statemachine/abcast, "Sequencer crash"), so no live process could
// finish; `ftcheck check abcast --crash-sequencer` checks that case. The
// second is --detector coordinator (only p0 told of a crash): the run's
// detector is ftcheck's perfect one, which tells every survivor of each
// death, or none.
func abcastFlags(fs *flag.FlagSet) func() error {
	fs.Var(flagAlias{fs, "core"}, "n", "the number of core members `N`: --core")
	return func() error {
		if v := fs.Lookup("crash-sequencer"); v != nil && v.Value.String() == "true" {
			return fmt.Errorf("--crash-sequencer: p0, the sequencer or coordinator, is never killed in a run (nothing would be delivered after its death); ftcheck check abcast --crash-sequencer checks it")
		}
		if v := fs.Lookup("detector"); v != nil && v.Value.String() != "perfect" && v.Value.String() != "none" {
			return fmt.Errorf("--detector %s: a run's detector is ftcheck's, which tells every survivor of each death (perfect), or none (ub, bb)", v.Value)
		}
		return nil
	}
}

// flagAlias is a second name for flag name of fs.
type flagAlias struct {
	fs   *flag.FlagSet
	name string
}

func (a flagAlias) String() string {
	if a.fs == nil {
		return ""
	}
	return a.fs.Lookup(a.name).Value.String()
}

func (a flagAlias) Set(s string) error { return a.fs.Set(a.name, s) }

// abcastFinished reports whether live rank r has delivered every message
// it can: each of the --messages messages of every member not killed
// (validity; a member whose kill is still to come counts as not killed),
// and each message that some process, killed or live, delivered (uniform
// agreement). It reads the deliveries the processes reported, by their
// canonical encodings.
func abcastFinished(h *runHeader, res *groupResult, r int) bool {
	msgs, err := strconv.Atoi(h.Params["messages"])
	if err != nil {
		return false
	}
	have := map[string]bool{}
	for _, rt := range res.returns[r] {
		have[rt.enc] = true
	}
	for q := range h.N {
		if res.killed[q] {
			continue
		}
		for s := range msgs {
			id := ab.ID{Origin: core.Rank(q), Seq: uint32(s)}
			if !have[hex.EncodeToString(id.AppendBinary(nil))] {
				return false
			}
		}
	}
	return !slices.ContainsFunc(res.returns, func(rts []returned) bool {
		return slices.ContainsFunc(rts, func(rt returned) bool { return !have[rt.enc] })
	})
}
