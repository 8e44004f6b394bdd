package main

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/checker/env"
	"github.com/ftkernel/ftkernel/netnode"
)

// Validating a run with restarts (run_restart.go).
//
// A restarted rank's logs, one per incarnation (p1.ndjson, p1.1.ndjson),
// follow each other: the rank crashes after the last line of each but its
// last (and after its last too when that one was killed), and the first
// line of each later one is its restart, the model's Recover action; a
// "recovered" line is the model's DetectRecover. Each send's record names
// the incarnation of the receiver it went to, so that:
//
//   - the k-th message incarnation i of p receives from q is the k-th q
//     logged as sent to p's incarnation i;
//   - a line that sends to incarnation i of p is placed only after p's
//     restart as incarnation i;
//   - p's restart as incarnation i is placed only after every line that
//     sent to an earlier incarnation of p (messages to a dead process are
//     lost: placed after the restart, the model would deliver them to the
//     new incarnation), and when the model enables it (every live process
//     was told of p's crash).

// readRankTraces reads rank q's logs: its first incarnation's, then one
// per restart the run made.
func readRankTraces(dir string, q int, h *runHeader) (*rankTrace, error) {
	t, err := readRankTrace(filepath.Join(dir, rankLog(q)), q, h)
	if err != nil {
		return nil, err
	}
	t.starts = []int{0}
	for _, x := range h.Restarts {
		if int(x.Rank) != q || !x.Done {
			continue
		}
		name := incarnationLog(q, x.Incarnation)
		u, err := readRankTrace(filepath.Join(dir, name), q, h)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if u.header.Incarnation != x.Incarnation || int(x.Incarnation) != len(t.starts) {
			return nil, fmt.Errorf("%s:1: incarnation %d, want %d", name, u.header.Incarnation, len(t.starts))
		}
		t.starts = append(t.starts, len(t.recs))
		t.recs = append(t.recs, u.recs...)
		t.truncated = t.truncated || u.truncated
	}
	return t, nil
}

// incarnation is the incarnation whose log holds record i.
func (t *rankTrace) incarnation(i int) int {
	k := 0
	for k+1 < len(t.starts) && t.starts[k+1] <= i {
		k++
	}
	return k
}

// restartMerge is merge's bookkeeping of crashes, restarts and the
// pairing of sends and receives per incarnation.
type restartMerge struct {
	logs    []*rankTrace
	killed  map[int]bool
	crashes []int    // crashes placed, per rank
	inc     []uint64 // each rank's incarnation in the merged run so far
	sent    map[link]int
	recvd   map[link]int
}

// link is a channel to one incarnation of its receiver.
type link struct {
	from, to int
	inc      uint64
}

func newRestartMerge(logs []*rankTrace, killed map[int]bool) *restartMerge {
	return &restartMerge{logs: logs, killed: killed, crashes: make([]int, len(logs)), inc: make([]uint64, len(logs)),
		sent: map[link]int{}, recvd: map[link]int{}}
}

// crashDue reports whether rank q crashes before its record next: the
// end of each incarnation but the last, and of the last when it was
// killed.
func (rs *restartMerge) crashDue(q, next int) bool {
	t := rs.logs[q]
	points := slices.Clone(t.starts[1:])
	if rs.killed[q] && len(t.starts) == 1 {
		points = append(points, len(t.recs))
	}
	return rs.crashes[q] < len(points) && next == points[rs.crashes[q]]
}

// received reports whether q's record i, a receive from from, has its
// send placed; with take, it counts the receive.
func (rs *restartMerge) received(from, q, i int, take bool) bool {
	if from < 0 || from >= len(rs.logs) {
		return false
	}
	l := link{from, q, uint64(rs.logs[q].incarnation(i))}
	if take {
		rs.recvd[l]++
		return true
	}
	return rs.recvd[l] < rs.sent[l]
}

// sendsReady reports whether every send of rec goes to an incarnation
// that has restarted in the merged run.
func (rs *restartMerge) sendsReady(rec netnode.Record) bool {
	for _, e := range rec.Effects {
		if e.Kind == "send" && e.To >= 0 && int(e.To) < len(rs.logs) && e.Inc > rs.inc[e.To] {
			return false
		}
	}
	return true
}

// restartReady reports whether q's record i, its restart, may be placed
// in model state s: the model enables Recover(q), and every line that
// sent to an earlier incarnation of q is placed.
func (rs *restartMerge) restartReady(m *env.Model, s *env.World, q, i int, next []int) bool {
	k := uint64(rs.logs[q].incarnation(i))
	for r, t := range rs.logs {
		for _, rec := range t.recs[next[r]:] {
			for _, e := range rec.Effects {
				if e.Kind == "send" && int(e.To) == q && e.Inc < k {
					return false
				}
			}
		}
	}
	return slices.Contains(m.Actions(s, nil), checker.Action{Kind: env.Recover, P: int32(q)})
}

// placed counts rec's sends, and q's restart.
func (rs *restartMerge) placed(q int, rec netnode.Record) {
	if rec.Event.Kind == "restart" {
		rs.inc[q]++
	}
	for _, e := range rec.Effects {
		if e.Kind == "send" && e.To >= 0 && int(e.To) < len(rs.logs) {
			rs.sent[link{q, int(e.To), e.Inc}]++
		}
	}
}

// lostSendHint explains the likely cause of a receive from a rank that
// was killed, which the model's channels do not explain.
func lostSendHint(from, to int) string {
	return fmt.Sprintf("p%d was killed: if its killed incarnation logged a send to p%d that never arrived, the kill fell between that step's "+
		"log line and the socket write, and the message was lost with the process, which the model's channels, without loss, cannot do", from, to)
}
