package correction

import (
	"fmt"
	"strings"

	"github.com/ftkernel/ftkernel/checker/logp"
	"github.com/ftkernel/ftkernel/core"
	sm "github.com/ftkernel/ftkernel/statemachine/correction"
)

// The guarantees `ftcheck simulate correction` checks on every LogP run:
// the names its violations carry.
const (
	// GuaranteeIntegrity (§2.1 Integrity): a process delivers only the
	// root's value, only if it is alive, and its delivery is its coloring.
	GuaranteeIntegrity = "integrity"
	// GuaranteeNoDuplicates (§2.1 No duplicates): at most one delivery.
	GuaranteeNoDuplicates = "no-duplicates"
	// GuaranteeMessageBound (§2.1 Termination): no process sends more than
	// Node.SendBound messages.
	GuaranteeMessageBound = "message-bound"
	// GuaranteeColorsAll (§3.1 checked correction, §3.3 delayed
	// correction): every live process is colored when the failures happen
	// before correction, as they do in the simulator (failed from the
	// start).
	GuaranteeColorsAll = "non-faulty-liveness"
	// GuaranteeOptimizedCovers (§3.3): optimized opportunistic correction
	// only leaves out messages another participant's correction covers, so
	// on the same faults it colors every process opportunistic correction
	// colors.
	GuaranteeOptimizedCovers = "optimized-covers-opportunistic"
)

// GuaranteeError is a violated guarantee: its name and what broke it.
type GuaranteeError struct {
	Property string
	Detail   string
}

func (e *GuaranteeError) Error() string { return e.Property + ": " + e.Detail }

// CheckRun checks one LogP run of a Corrected Tree broadcast against the
// guarantees of its variant: nodes are the run's machines after the run
// (statemachine/correction nodes of config cfg), failed the processes
// failed from the start, value the root's broadcast value. Every variant:
// integrity, no duplicates, the message bound; checked and delayed
// correction also color every live process. It returns a *GuaranteeError
// naming the first violation, or an error if a node is not a corrected
// broadcast node.
func CheckRun(cfg *sm.Config, value sm.Value, res *logp.Result, nodes []core.Machine, failed core.RankSet) error {
	if len(nodes) != res.P || len(res.DeliveredAt) != res.P || len(res.SentPerProc) != res.P {
		return fmt.Errorf("correction: run of %d processes, %d nodes", res.P, len(nodes))
	}
	var uncolored []string
	for r, m := range nodes {
		n, ok := m.(*sm.Node)
		if !ok {
			return fmt.Errorf("correction: p%d is %T, not a corrected broadcast node", r, m)
		}
		dead := failed.Has(core.Rank(r))
		delivered := res.DeliveredAt[r] >= 0
		switch {
		case dead && (delivered || n.Colored()):
			return &GuaranteeError{GuaranteeIntegrity, fmt.Sprintf("p%d failed from the start but is colored", r)}
		case delivered != n.Colored():
			return &GuaranteeError{GuaranteeIntegrity, fmt.Sprintf("p%d delivered=%t but colored=%t", r, delivered, n.Colored())}
		case n.Colored() && n.Value() != value:
			return &GuaranteeError{GuaranteeIntegrity, fmt.Sprintf("p%d holds %v, the root broadcast %v", r, n.Value(), value)}
		case int(res.SentPerProc[r]) > n.SendBound():
			return &GuaranteeError{GuaranteeMessageBound, fmt.Sprintf("p%d sent %d messages, bound %d", r, res.SentPerProc[r], n.SendBound())}
		case !dead && !delivered:
			uncolored = append(uncolored, fmt.Sprintf("p%d", r))
		}
	}
	if res.Duplicates > 0 {
		return &GuaranteeError{GuaranteeNoDuplicates, fmt.Sprintf("%d duplicate deliveries", res.Duplicates)}
	}
	if len(uncolored) > 0 && (cfg.Correction == sm.Checked || cfg.Correction == sm.Delayed) {
		return &GuaranteeError{GuaranteeColorsAll, fmt.Sprintf("%d live processes uncolored by %v correction: %s", len(uncolored), cfg.Correction, abbreviate(uncolored))}
	}
	return nil
}

// CheckCovers is the relational guarantee of optimized opportunistic
// correction: opp and opt are runs on the same faults, tree and LogP
// parameters with opportunistic and optimized opportunistic correction of
// the same distance d; every process opp colors, opt colors too.
func CheckCovers(opp, opt *logp.Result) error {
	if opp.P != opt.P {
		return fmt.Errorf("correction: runs of %d and %d processes", opp.P, opt.P)
	}
	var missed []string
	for r := range opp.P {
		if opp.DeliveredAt[r] >= 0 && opt.DeliveredAt[r] < 0 {
			missed = append(missed, fmt.Sprintf("p%d", r))
		}
	}
	if len(missed) > 0 {
		return &GuaranteeError{GuaranteeOptimizedCovers, fmt.Sprintf("%d processes colored by opportunistic correction, not by optimized: %s", len(missed), abbreviate(missed))}
	}
	return nil
}

// abbreviate joins the first ten names of xs and says how many more.
func abbreviate(xs []string) string {
	if len(xs) <= 10 {
		return strings.Join(xs, " ")
	}
	return fmt.Sprintf("%s … (%d more)", strings.Join(xs[:10], " "), len(xs)-10)
}

// keepColoring copies what CheckCovers reads from r (a logp.Sim reuses its
// slices in the next run).
func keepColoring(r *logp.Result) *logp.Result {
	c := *r
	c.DeliveredAt = append([]int64(nil), r.DeliveredAt...)
	c.SentPerProc = append([]int32(nil), r.SentPerProc...)
	c.Log = nil
	return &c
}
