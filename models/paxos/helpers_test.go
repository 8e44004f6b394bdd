package paxos_test

import (
	"strings"
	"testing"

	"github.com/ftkernel/ftkernel/checker"
	"github.com/ftkernel/ftkernel/models/internal/modeltest"
	"github.com/ftkernel/ftkernel/registry"
)

// safety are the properties checked without termination: plain BFS or
// DFS (no state graph kept), for the runs whose graph would not fit.
var safety = []string{"validity", "agreement", "uniform-agreement", "integrity", "in-order"}

func build(t testing.TB, args string) registry.Runner {
	t.Helper()
	return modeltest.Build(t, "paxos", strings.Fields(args)...)
}

// mustHold runs a complete BFS of args (opt's properties) and fails on a
// violation or an incomplete run.
func mustHold(t *testing.T, args string, opt checker.Options) *checker.Result {
	t.Helper()
	res := build(t, args).BFS(opt)
	if res.Err != nil || !res.Complete || len(res.Violations) > 0 {
		for _, tr := range res.Violations {
			t.Log(tr)
		}
		t.Fatalf("%s: err=%v complete=%v violations=%d", args, res.Err, res.Complete, len(res.Violations))
	}
	return res
}
