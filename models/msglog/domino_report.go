package msglog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ftkernel/ftkernel/registry"
)

// dominoReport is --measure domino: the pattern of p's failure-free run
// (the default schedule) with Fig. 2.2's checkpoints for fig51 unless
// --checkpoint-every K asks for one after every K-th delivery of every
// process (besides the program's own), every cut of checkpoints with its
// orphan messages, and the recovery lines.
func dominoReport(p Params, rep *registry.SimReport) error {
	pl := Placement{Every: p.CheckpointEvery}
	if p.Program == "fig51" && p.CheckpointEvery == 0 {
		pl = Fig22Placement
	}
	p.CheckpointEvery = 0
	r, err := Simulate(p, Crash{}, 0)
	if err != nil {
		return err
	}
	prog := p.program()
	pat := PatternOf(r.Final, prog, pl)
	cuts := pat.Cuts()
	if len(cuts) > 100000 {
		return fmt.Errorf("--measure domino: %d cuts, over 100000", len(cuts))
	}
	named := startsWithCheckpoint(prog)
	var b strings.Builder
	fmt.Fprintf(&b, "msglog domino effect without logging: program %s, %d processes, %d cuts of checkpoints\n", p.Program, p.Procs, len(cuts))
	for q, cks := range pat.Checkpoints {
		fmt.Fprintf(&b, "p%d: %d events, checkpoints after %v events\n", q, len(pat.Events[q]), cks)
	}
	var lines []string
	var orphanCuts []map[string]any
	for _, c := range cuts {
		name := pat.CutString(c.Ck, named)
		if len(c.Orphans) == 0 {
			lines = append(lines, name)
			fmt.Fprintf(&b, "%s: recovery line\n", name)
			continue
		}
		orphanCuts = append(orphanCuts, map[string]any{"cut": name, "orphans": c.Orphans})
		fmt.Fprintf(&b, "%s: orphans %s\n", name, strings.Join(c.Orphans, ", "))
	}
	initial := slices.Equal(pat.RecoveryLines()[len(pat.RecoveryLines())-1], make([]int, len(pat.Checkpoints)))
	fmt.Fprintf(&b, "recovery lines: %d; the latest is the initial state: %v\n", len(lines), initial)
	rep.Figures["program"], rep.Figures["procs"], rep.Figures["cuts"] = p.Program, p.Procs, len(cuts)
	rep.Figures["recovery_lines"], rep.Figures["cuts_with_orphans"], rep.Figures["only_initial_state"] = lines, orphanCuts, initial && len(lines) == 1
	rep.Text = b.String()
	return nil
}
