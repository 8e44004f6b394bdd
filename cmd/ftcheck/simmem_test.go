package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ftkernel/ftkernel/checker"
)

// growEnv, in a test binary started as ftcheck (FTCHECK_AS_MAIN=1), makes
// it allocate and touch memory after a delay, 16 MiB every 50 ms up to the
// value in MiB: what a simulation that needs ever more memory does.
const growEnv = "FTCHECK_TEST_GROW_MIB"

var grown [][]byte

func init() {
	if os.Getenv("FTCHECK_AS_MAIN") != "1" {
		return
	}
	limit, err := strconv.Atoi(os.Getenv(growEnv))
	if err != nil || limit <= 0 {
		return
	}
	go func() {
		time.Sleep(2 * time.Second)
		for n := 0; n+16 <= limit; n += 16 {
			grown = append(grown, touched(16<<20))
			time.Sleep(50 * time.Millisecond)
		}
	}()
}

// touched returns n bytes with every page written.
func touched(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		b[i] = 1
	}
	return b
}

// progressWriter keeps what is written to it and closes seen at the first
// progress line.
type progressWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	seen chan struct{}
	once sync.Once
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if bytes.Contains(w.buf.Bytes(), []byte("progress:")) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *progressWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// TestSimulateMemoryStop: when the process's memory passes simulate's
// bound (--max-memory: 64 MiB above the test's resident set) while random
// walks run, the walks stop, the
// summary covers those done and says where it stopped, and the exit status
// is 3 (incomplete); in JSON, complete is false and stop is "memory".
func TestSimulateMemoryStop(t *testing.T) {
	dir := t.TempDir()
	for _, asJSON := range []bool{true, false} {
		debug.FreeOSMemory()
		mb := 64 + checker.ResidentBytes()>>20
		args := []string{"simulate", "era", "--n", "32", "--walks", "200000", "--max-memory", strconv.FormatInt(mb, 10), "--out", dir}
		if asJSON {
			args = append(args, "--json")
		}
		stderr := &progressWriter{seen: make(chan struct{})}
		finished := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			select {
			case <-stderr.seen:
			case <-finished:
				return
			}
			var ballast [][]byte
			for range mb/8 + 2 {
				ballast = append(ballast, touched(8<<20))
			}
			<-finished
			runtime.KeepAlive(ballast)
		})
		var stdout bytes.Buffer
		code := run(args, &stdout, stderr)
		close(finished)
		wg.Wait()
		out, errs := stdout.String(), stderr.String()
		if code != 3 {
			t.Fatalf("%v: exit %d, want 3\nstdout: %s\nstderr: %s", args, code, out, errs)
		}
		if !strings.Contains(errs, "the memory bound (--max-memory); reporting the runs done") {
			t.Errorf("stderr does not report the memory stop: %s", errs)
		}
		var walks float64
		if asJSON {
			var doc map[string]any
			decodeOne(t, out, &doc)
			walks, _ = doc["walks"].(float64)
			if doc["complete"] != false || doc["stop"] != "memory" || doc["memory_bound_mib"] != float64(mb) {
				t.Errorf("complete %v, stop %v, memory_bound_mib %v: %s", doc["complete"], doc["stop"], doc["memory_bound_mib"], out)
			}
		} else {
			_, after, ok := strings.Cut(out, fmt.Sprintf("stopped at the memory bound (%d MiB from --max-memory) after ", mb))
			n, _, _ := strings.Cut(after, " walks")
			walks, _ = strconv.ParseFloat(n, 64)
			if !ok || !strings.Contains(out, " walks, ") {
				t.Errorf("no memory stop line: %s", out)
			}
		}
		if walks < 1 || walks >= 200000 {
			t.Errorf("walks done %v, want some and fewer than 200000:\n%s", walks, out)
		}
	}
}

// TestSimulateMemoryFlatInWalks: the live heap of simulate era (as of
// each collection, above the one at the start) does not grow with --walks:
// ten times the walks, at most 16 MiB more at the peak.
func TestSimulateMemoryFlatInWalks(t *testing.T) {
	dir := t.TempDir()
	live := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	growth := func(walks int) uint64 {
		base := min(live(), live())
		stop := make(chan struct{})
		res := make(chan uint64)
		go func() {
			var p uint64
			for {
				p = max(p, live())
				select {
				case <-stop:
					res <- p
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		code, _, errs := ftcheck(t, "simulate", "era", "--n", "8", "--walks", strconv.Itoa(walks), "--quiet", "--out", dir)
		close(stop)
		p := <-res
		if code != 0 {
			t.Fatalf("--walks %d: exit %d: %s", walks, code, errs)
		}
		return max(p, base) - base
	}
	small, big := growth(500), growth(5000)
	t.Logf("live heap at its peak, above the start: %.1f MiB at 500 walks, %.1f MiB at 5000", float64(small)/(1<<20), float64(big)/(1<<20))
	if big > small+16<<20 {
		t.Errorf("the live heap grows with the walks: %.1f MiB above the start at 500 walks, %.1f MiB at 5000", float64(small)/(1<<20), float64(big)/(1<<20))
	}
}

// TestCgroupSimulateStops runs simulate era at N = 256 with a million
// walks inside a child cgroup limited to 1.5 GiB, the process growing
// toward the limit (growEnv): it must stop at its memory bound, taken from
// that cgroup, report the walks done with complete=false and stop=memory,
// and exit 3, within a minute, never killed. It needs root and a writable
// cgroup hierarchy with the memory controller (v1 or v2).
func TestCgroupSimulateStops(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("cgroups are Linux's")
	}
	if os.Geteuid() != 0 {
		t.Skip("creating a child cgroup needs root")
	}
	cg, err := makeChildCgroup(t, 1536<<20)
	if err != nil {
		t.Skipf("no writable cgroup hierarchy with the memory controller: %v", err)
	}
	stdout, ps := cg.run(t, time.Minute, []string{"FTCHECK_AS_MAIN=1", growEnv + "=1350", "GOMEMLIMIT=", "GOGC="},
		os.Args[0], "simulate", "era", "--n", "256", "--walks", "1000000", "--json", "--quiet", "--out", t.TempDir())
	if code := ps.ExitCode(); code != 3 {
		t.Errorf("exit status %d, want 3 (incomplete)", code)
	}
	var doc struct {
		Complete *bool   `json:"complete"`
		Stop     string  `json:"stop"`
		Walks    int     `json:"walks"`
		From     string  `json:"memory_from"`
		Bound    float64 `json:"memory_bound_mib"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON object: %v", err)
	}
	if doc.Complete == nil || *doc.Complete || doc.Stop != "memory" || doc.Walks < 1 || doc.Bound <= 0 || doc.Bound >= 1536 {
		t.Errorf("complete %v, stop %q, walks %d, bound %v MiB", doc.Complete, doc.Stop, doc.Walks, doc.Bound)
	}
	if !strings.Contains(doc.From, "cgroup v") || !strings.Contains(doc.From, filepath.Base(cg.dir)+" (1536 MiB") {
		t.Errorf("the bound does not come from the child cgroup: %q", doc.From)
	}
}

// TestSimulateRefusesWhatCannotFit: a simulation whose one run needs more
// than the memory bound up front is refused at once, in one line that says
// how much it needs and what to lower, with exit 2, before it allocates.
func TestSimulateRefusesWhatCannotFit(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"correction", "--P", "4194304", "--max-memory", "64"}, "--P 4194304: needs about "},
		{[]string{"correction", "--P", "1048576", "--runs", "100", "--fault-rate", "0.01", "--max-memory", "1000"}, "--P 1048576: needs about "},
		{[]string{"correction", "--P", "262144", "--svg", filepath.Join(dir, "t.svg"), "--max-memory", "1000"}, "lower --P (or drop --svg) or raise --max-memory"},
		{[]string{"correction", "--P", "4194304", "--table1", "--max-memory", "2000"}, "--P 4194304: needs about "},
		{[]string{"gossipfd", "--detection", "--n", "65536", "--max-memory", "4000"}, "--n 65536: needs about "},
		{[]string{"gossipfd", "--fd-failure", "--n", "65536", "--trials", "10", "--max-memory", "500"}, "lower --n or raise --max-memory"},
	} {
		start := time.Now()
		code, out, errs := ftcheck(t, append(append([]string{"simulate"}, c.args...), "--quiet", "--out", dir)...)
		mb := c.args[len(c.args)-1]
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) ||
			!strings.Contains(errs, "the memory bound is "+mb+" MiB (from --max-memory); lower --") || time.Since(start) > 5*time.Second {
			t.Errorf("%v: exit %d after %.1fs\nstdout: %s\nstderr: %s", c.args, code, time.Since(start).Seconds(), out, errs)
		}
	}
}
