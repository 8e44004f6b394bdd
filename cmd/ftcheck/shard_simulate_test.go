package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSimulateShardRefusedBeforeRunning: --shard on a model whose
// simulation is not split by run index (registry.Protocol.ShardsSimulate
// unset) is refused at flag validation. The campaign asked for (10^6 ERA
// walks with a progress line every 2 s) would run for minutes: the test fails
// if the process is still running after 20 s, if it printed a progress
// line or anything on stdout, if it created the --out directory or the
// --result file, or if its exit status is not 2 with one line on stderr.
func TestSimulateShardRefusedBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	out, result := filepath.Join(dir, "out"), filepath.Join(dir, "paxos.shard")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "simulate", "paxos", "--walks", "100000",
		"--shard", "0/2", "--result", result, "--out", out)
	cmd.Env = append(os.Environ(), "FTCHECK_AS_MAIN=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("still running after 20 s: --shard was not refused before the walks (stderr %q)", stderr.String())
	}
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 {
		t.Fatalf("exit %v, want status 2 (stderr %q)", err, stderr.String())
	}
	msg := strings.TrimSpace(stderr.String())
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "--shard") || !strings.Contains(msg, "correction") {
		t.Errorf("stderr %q: want one line naming --shard and the models that take it", msg)
	}
	if stdout.Len() != 0 || strings.Contains(stderr.String(), "progress:") {
		t.Errorf("output before the refusal: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	for _, p := range []string{out, result} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists: the refusal came after the run began", p)
		}
	}
}
