package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ftkernel/ftkernel/core"
	"github.com/ftkernel/ftkernel/netnode"
)

// Crash recovery in ftcheck run: --restart RANK@DURATION restarts a killed
// rank's process from its stable storage on disk.
//
// Every rank with a --restart keeps its stable storage in
// TRACE-DIR/state/p<rank> (netnode StateDir). When the restart is due, the
// rank's kill was made, its exit was seen, and every live process said it
// stepped the rank's suspicion (the model's Recover needs every live
// process told of the crash), the parent starts a new process for the
// rank with --restart: it rebuilds the machine from the directory
// (netnode.Restore), logs to p<rank>.<incarnation>.ndjson and listens. The
// parent gives it the live peers' addresses, tells every live process
// "recovered RANK ADDR INC" (netnode Rejoin: connect to the new
// incarnation and step core.Recovered), and, once the new process is
// connected both ways, starts it: it steps core.Restart() first, then
// the perfect detector tells it of every rank still dead.

// restart is one --restart RANK@DURATION.
type restart struct {
	Rank core.Rank     `json:"rank"`
	At   time.Duration `json:"at_ns"`
	// Done reports that the new process started; Started is when, from
	// the start of the scenario, and Running when it had connected both
	// ways and was told to start.
	Done        bool          `json:"done"`
	Incarnation uint64        `json:"incarnation,omitempty"`
	Started     time.Duration `json:"started_ns,omitempty"`
	Running     time.Duration `json:"running_ns,omitempty"`
}

type restartFlag []restart

func (f *restartFlag) String() string {
	k := make(killFlag, len(*f)) // the same RANK@DURATION syntax
	for i, x := range *f {
		k[i] = kill{Rank: x.Rank, At: x.At}
	}
	return k.String()
}

func (f *restartFlag) Set(s string) error {
	var k killFlag // the same RANK@DURATION syntax
	if err := k.Set(s); err != nil {
		return err
	}
	*f = append(*f, restart{Rank: k[0].Rank, At: k[0].At})
	return nil
}

// checkRestarts says why restarts are not possible with kills over n
// ranks ("" when they are): each restarted rank is killed, before its
// restart, and restarted once.
func checkRestarts(restarts []restart, kills []kill, n int) string {
	seen := map[core.Rank]bool{}
	for _, r := range restarts {
		i := -1
		for j, k := range kills {
			if k.Rank == r.Rank {
				i = j
			}
		}
		switch {
		case !r.Rank.Valid(n):
			return fmt.Sprintf("--restart %d@%v: rank out of range 0 … %d", r.Rank, r.At, n-1)
		case seen[r.Rank]:
			return fmt.Sprintf("--restart: rank %d restarted twice", r.Rank)
		case i < 0:
			return fmt.Sprintf("--restart %d@%v: rank %d is not killed (--kill %d@…)", r.Rank, r.At, r.Rank, r.Rank)
		case kills[i].At >= r.At:
			return fmt.Sprintf("--restart %d@%v: not after its kill at %v", r.Rank, r.At, kills[i].At)
		}
		seen[r.Rank] = true
	}
	return ""
}

// stateDir is rank r's stable storage in trace directory dir.
func stateDir(dir string, r int) string { return filepath.Join(dir, "state", fmt.Sprintf("p%d", r)) }

// incarnationLog is the log of incarnation inc of rank r: rankLog(r) for
// the first, p<r>.<inc>.ndjson after a restart.
func incarnationLog(r int, inc uint64) string {
	if inc == 0 {
		return rankLog(r)
	}
	return fmt.Sprintf("p%d.%d.ndjson", r, inc)
}

// restoreNode rebuilds a restarted rank's machine from its state
// directory: fresh is its first machine, calls its schedule (a logged
// call is read back as the schedule's input with the same encoding), log
// its new incarnation's log: the earlier incarnations' logs beside it say
// how many steps were done.
func restoreNode(dir string, rank int, log string, fresh core.Machine, decode func([]byte) (core.Message, error), calls []core.Input) (*netnode.Restored, error) {
	if dir == "" {
		return nil, fmt.Errorf("run-node: --restart needs --state-dir")
	}
	var logged uint64
	for k := uint64(0); ; k++ {
		path := filepath.Join(filepath.Dir(log), incarnationLog(rank, k))
		if path == log {
			break
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("run-node: --restart: %w", err)
		}
		if lines := uint64(bytes.Count(b, []byte{'\n'})); lines > 0 {
			logged += lines - 1 // the header
		}
	}
	return netnode.Restore(dir, fresh, logged, decode, func(b []byte) (core.Input, error) {
		for _, in := range calls {
			if bytes.Equal(in.AppendBinary([]byte{}), b) {
				return in, nil
			}
		}
		return nil, fmt.Errorf("%x is none of the schedule's calls", b)
	})
}

// programFinished is how a node says it ran its whole program: Finished
// (replica) or Done (msglog); a rank the model assumes never fails and
// that has neither (the event logger's server) has no program, and has
// finished from the start. Nil: the machine does not say.
func programFinished(m core.Machine, survivor bool) interface{ Finished() bool } {
	switch f := m.(type) {
	case interface{ Finished() bool }:
		return f
	case interface{ Done() bool }:
		return doneFunc(f.Done)
	}
	if survivor {
		return doneFunc(func() bool { return true })
	}
	return nil
}

type doneFunc func() bool

func (f doneFunc) Finished() bool { return f() }

// peerToken is rank q's entry in a "peers" line: "-" when dead, ADDR, or
// ADDR#INC after a restart.
func peerToken(addr string, dead bool, inc uint64) string {
	switch {
	case dead:
		return "-"
	case inc > 0:
		return fmt.Sprintf("%s#%d", addr, inc)
	}
	return addr
}

// parsePeers reads a "peers" line of n tokens: the addresses ("" for a
// dead rank) and the incarnations.
func parsePeers(line string, n int) ([]string, []uint64, error) {
	f := strings.Fields(line)
	if len(f) != n {
		return nil, nil, fmt.Errorf("peers: %d addresses for %d ranks", len(f), n)
	}
	addrs, incs := make([]string, n), make([]uint64, n)
	for q, t := range f {
		if t == "-" {
			continue
		}
		a, inc, ok := strings.Cut(t, "#")
		if ok {
			var err error
			if incs[q], err = strconv.ParseUint(inc, 10, 64); err != nil {
				return nil, nil, fmt.Errorf("peers: %q: bad incarnation", t)
			}
		}
		addrs[q] = a
	}
	return addrs, incs, nil
}

// rejoin reads "Q ADDR INC" (a "recovered" line) and tells the node.
func rejoin(node *netnode.Node, line string, n int) error {
	f := strings.Fields(line)
	if len(f) != 3 {
		return fmt.Errorf("bad line %q", "recovered "+line)
	}
	q, err1 := strconv.Atoi(f[0])
	inc, err2 := strconv.ParseUint(f[2], 10, 64)
	if err1 != nil || err2 != nil || !core.Rank(q).Valid(n) {
		return fmt.Errorf("bad line %q", "recovered "+line)
	}
	return node.Rejoin(core.Rank(q), f[1], inc)
}

// restarting is runGroup's part of the restarts: when each is due, which
// live processes stepped each dead rank's suspicion, and each new
// process's progress.
type restarting struct {
	h     *runHeader
	start time.Time
	due   chan int // restart i's time has come (runGroup sets isDue[i])
	isDue []bool
	stage []int // per restart: waiting, spawned, told, running
	// suspected[q]: the ranks that said they stepped q's suspicion.
	suspected map[int]map[int]bool
	addrs     []string // every rank's current address
	incs      []uint64
	// The group's side, set by runGroup.
	spawn func(r int, inc uint64) error
	tell  func(r int, line string)
	live  func(r int) bool
}

const (
	restartWaiting = iota
	restartSpawned // its process started, its address not yet said
	restartTold    // its peers and the live processes told, not yet connected
	restartRunning
)

func newRestarting(h *runHeader, start time.Time, addrs []string) *restarting {
	rs := &restarting{h: h, start: start, due: make(chan int, len(h.Restarts)), isDue: make([]bool, len(h.Restarts)), stage: make([]int, len(h.Restarts)),
		suspected: map[int]map[int]bool{}, addrs: addrs, incs: make([]uint64, h.N)}
	for i, r := range h.Restarts {
		time.AfterFunc(time.Until(start.Add(r.At)), func() { rs.due <- i })
	}
	return rs
}

// starting reports whether rank r's new process is starting (it reads
// its peers first: nothing else may be told to it yet).
func (rs *restarting) starting(r int) bool {
	for i, x := range rs.h.Restarts {
		if int(x.Rank) == r && (rs.stage[i] == restartSpawned || rs.stage[i] == restartTold) {
			return true
		}
	}
	return false
}

// pending reports whether a restart is yet to run: a run with restarts
// lasts until every kill and restart was made (a process may be killed
// after it finished its program, and its restart replays it).
func (rs *restarting) pending() bool {
	for i := range rs.h.Restarts {
		if rs.stage[i] != restartRunning {
			return true
		}
	}
	return false
}

// line takes a child's line that is about restarts; it reports whether
// it was one.
func (rs *restarting) line(ev childEvent) bool {
	if q, ok := strings.CutPrefix(ev.line, "suspected "); ok {
		if d, err := strconv.Atoi(q); err == nil {
			if rs.suspected[d] == nil {
				rs.suspected[d] = map[int]bool{}
			}
			rs.suspected[d][ev.rank] = true
		}
		return true
	}
	for i, x := range rs.h.Restarts {
		if int(x.Rank) != ev.rank {
			continue
		}
		switch a, isAddr := strings.CutPrefix(ev.line, "addr "); {
		case rs.stage[i] == restartSpawned && isAddr:
			rs.addrs[ev.rank] = a
			rs.stage[i] = restartTold
			peers := make([]string, rs.h.N)
			for q := range rs.h.N {
				peers[q] = peerToken(rs.addrs[q], q != ev.rank && !rs.live(q), rs.incs[q])
			}
			rs.tell(ev.rank, "peers "+strings.Join(peers, " "))
			for q := range rs.h.N {
				if q != ev.rank && rs.live(q) {
					rs.tell(q, fmt.Sprintf("recovered %d %s %d", ev.rank, a, rs.incs[ev.rank]))
				}
			}
			return true
		case rs.stage[i] == restartTold && ev.line == "connected":
			rs.stage[i] = restartRunning
			rs.h.Restarts[i].Running = time.Since(rs.start)
			rs.tell(ev.rank, fmt.Sprintf("start %d", time.Now().UnixNano()))
			// The perfect detector tells the new incarnation of every
			// rank then dead (the model's Detect steps of it).
			if rs.h.Detector == "perfect" {
				for q := range rs.h.N {
					if q != ev.rank && !rs.live(q) {
						rs.tell(ev.rank, fmt.Sprintf("suspect %d", q))
					}
				}
			}
			return true
		}
	}
	return false
}

// advance starts every restart that is due and whose rank is dead, seen
// dead, and reported to every live process.
func (rs *restarting) advance(exited func(r int) bool) error {
	for i := range rs.h.Restarts {
		x := &rs.h.Restarts[i]
		r := int(x.Rank)
		if rs.stage[i] != restartWaiting || !rs.isDue[i] || !exited(r) {
			continue
		}
		told := true
		for q := range rs.h.N {
			if q != r && rs.live(q) && !rs.suspected[r][q] {
				told = false
			}
		}
		if !told {
			continue
		}
		rs.incs[r]++
		x.Done, x.Incarnation, x.Started = true, rs.incs[r], time.Since(rs.start)
		rs.stage[i] = restartSpawned
		delete(rs.suspected, r)
		if err := rs.spawn(r, rs.incs[r]); err != nil {
			return err
		}
	}
	return nil
}

// printRestarts prints each restart, and what the rank output before its
// kill.
func printRestarts(w io.Writer, rep *runReport) {
	for _, x := range rep.Restarts {
		if !x.Done {
			fmt.Fprintf(w, "p%d not restarted (asked %v): it was not killed, or the run ended first\n", x.Rank, x.At)
			continue
		}
		fmt.Fprintf(w, "restarted p%d at %.1fms (asked %v) as incarnation %d from its stable storage, running at %.1fms\n",
			x.Rank, ms(x.Started), x.At, x.Incarnation, ms(x.Running))
		for _, p := range rep.Processes {
			if p.Rank != int(x.Rank) {
				continue
			}
			var vals []string
			for _, rt := range p.Before {
				vals = append(vals, fmt.Sprintf("%s%d %s", runScenarios[rep.Model].label, rt.Instance, rt.Value))
			}
			fmt.Fprintf(w, "p%d had %d outputs before its kill: %s\n", p.Rank, len(vals), strings.Join(append(vals, "none")[:max(1, len(vals))], ", "))
		}
	}
}
