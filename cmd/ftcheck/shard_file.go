package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ftkernel/ftkernel/checker"
)

// shardFormat names the layout of a --result file: one line of JSON (a
// shardHeader), then, for a check, the shard's visited set as
// checker.WriteFingerprints writes it, then the states it expanded as
// checker.WriteExpansions writes them.
const shardFormat = "ftcheck-shard/2"

// shardHeader is the JSON line of a --result file.
type shardHeader struct {
	Format  string `json:"format"`
	Command string `json:"command"` // check or simulate
	Model   string `json:"model"`   // the registered model
	Name    string `json:"name"`    // the configured model, as check prints it
	// Params are the flag values that determine the results (shardParams).
	Params  map[string]string `json:"params"`
	Shard   int               `json:"shard"`
	Shards  int               `json:"shards"`
	Seconds float64           `json:"seconds"`
	// PeakRSSMiB is the process's peak resident set (getrusage), MiB.
	PeakRSSMiB float64     `json:"peak_rss_mib"`
	Check      *shardCheck `json:"check,omitempty"`
	Sim        *shardSim   `json:"simulate,omitempty"`
}

// shardCheck is what a shard of ftcheck check found.
type shardCheck struct {
	Mode        string `json:"mode"`
	States      int64  `json:"states"`
	Transitions int64  `json:"transitions"`
	Depth       int    `json:"max_depth"`
	Complete    bool   `json:"complete"`
	Stop        string `json:"stop"`
	SplitDepth  int    `json:"split_depth"`
	// SplitStates and SplitTransitions are the states found and generated
	// before the split level was expanded: the prefix every shard shares.
	SplitStates      int64            `json:"split_states"`
	SplitTransitions int64            `json:"split_transitions"`
	Properties       []string         `json:"properties"`
	Violations       []*checker.Trace `json:"violations"`
	// FingerprintBytes is the size of the visited set after the header;
	// it holds States fingerprints.
	FingerprintBytes int64 `json:"fingerprint_bytes"`
	// Expanded states follow the visited set, in ExpansionBytes bytes;
	// InitTransitions is the initial states Transitions counts
	// (checker.Result.Expanded, InitTransitions).
	Expanded        int64 `json:"expanded"`
	ExpansionBytes  int64 `json:"expansion_bytes"`
	InitTransitions int64 `json:"init_transitions"`
}

// shardSim is what a shard of ftcheck simulate recorded: per sub-campaign,
// per run index, the run's record (registry.RunLog).
type shardSim struct {
	Campaigns   []map[int]json.RawMessage `json:"campaigns"`
	Interrupted bool                      `json:"interrupted"`
}

// writeShard writes h (and for a check its visited set fps and its
// expanded states es) to path atomically: into a temporary file of the
// same directory, synced, then renamed over path.
func writeShard(path string, h *shardHeader, fps []uint64, es []checker.Expansion) error {
	h.Format = shardFormat
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--result: %v", err)
	}
	defer os.Remove(f.Name()) // a no-op after the rename
	if err := writeShardTo(f, h, fps, es); err != nil {
		f.Close()
		return fmt.Errorf("--result %s: %v", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return fmt.Errorf("--result %s: %v", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("--result %s: %v", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--result %s: %v", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("--result: %v", err)
	}
	return nil
}

func writeShardTo(w io.Writer, h *shardHeader, fps []uint64, es []checker.Expansion) error {
	if h.Check != nil {
		// The sizes, for the header: counted before they are written.
		n, err := checker.WriteFingerprints(io.Discard, fps)
		if err != nil {
			return err
		}
		h.Check.FingerprintBytes = n
		if n, err = checker.WriteExpansions(io.Discard, es); err != nil {
			return err
		}
		h.Check.Expanded, h.Check.ExpansionBytes = int64(len(es)), n
	}
	b, err := json.Marshal(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return err
	}
	if h.Check != nil {
		if _, err = checker.WriteFingerprints(w, fps); err == nil {
			_, err = checker.WriteExpansions(w, es)
		}
	}
	return err
}

// shardFile is an open --result file: its header, and for a check a reader
// positioned at its visited set.
type shardFile struct {
	path string
	h    shardHeader
	f    *os.File
	r    *bufio.Reader
}

// openShard reads path's header and checks that the visited set that
// follows has the size the header gives.
func openShard(path string) (*shardFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sf := &shardFile{path: path, f: f, r: bufio.NewReaderSize(f, 1<<16)}
	line, err := sf.r.ReadBytes('\n')
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: not a shard result (no header line)", path)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sf.h); err != nil || sf.h.Format != shardFormat {
		f.Close()
		return nil, fmt.Errorf("%s: not a shard result of format %s", path, shardFormat)
	}
	if c := sf.h.Check; c != nil {
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, err
		}
		if want := int64(len(line)) + c.FingerprintBytes + c.ExpansionBytes; fi.Size() != want {
			f.Close()
			return nil, fmt.Errorf("%s: %d bytes, the header gives %d (a damaged or truncated file)", path, fi.Size(), want)
		}
	}
	return sf, nil
}

// fingerprints is the file's visited set as a stream.
func (sf *shardFile) fingerprints() *checker.FingerprintReader {
	return checker.NewFingerprintReader(sf.r, sf.h.Check.States)
}

// expansions is the file's expanded states as a stream; read it after the
// whole visited set.
func (sf *shardFile) expansions() *checker.ExpansionReader {
	return checker.NewExpansionReader(sf.r, sf.h.Check.Expanded)
}

func (sf *shardFile) close() { sf.f.Close() }

var errNoShards = errors.New("merge: name the shard result files (ftcheck merge FILE…)")
