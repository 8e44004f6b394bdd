package checker

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lockFile, in a checkpoint directory, is locked (flock, exclusive) by the
// search that writes checkpoints there or resumes from there, for as long
// as it runs; it holds that process's id. The lock goes with the process:
// a killed search leaves no stale lock.
const lockFile = "lock"

// openCheckpoints readies Options.CheckpointDir and Options.Resume before
// the search starts: it refuses a search that cannot checkpoint
// (checkpointBlocker), creates CheckpointDir if it is missing and checks
// that it is a writable directory (a probe file is created and removed),
// locks both directories against other searches, and reads the header of
// the verified checkpoint to resume (readHeader), leaving its body to
// resume. Every error is one line naming the directory.
func (x *search[S]) openCheckpoints() error {
	dir, res := x.opt.CheckpointDir, x.opt.Resume
	if dir == "" && res == "" {
		return nil
	}
	if why := x.checkpointBlocker(); why != "" {
		return errors.New("checker: " + why)
	}
	if dir != "" {
		if err := prepareDir(dir); err != nil {
			return err
		}
		if err := x.ck.lock(dir, true); err != nil {
			return err
		}
	}
	if res != "" {
		if err := x.ck.lock(res, false); err != nil {
			return err
		}
	}
	if x.ck.file != nil {
		c := x.openBody()
		x.readHeader(c)
		if c.err != nil {
			return x.resumeError(c.err)
		}
		x.ck.rest = c
	}
	return nil
}

// closeCheckpoints releases the locks and closes the resumed checkpoint.
func (x *search[S]) closeCheckpoints() {
	if x.ck.file != nil {
		x.ck.file.Close()
		x.ck.file = nil
	}
	for _, f := range x.ck.locks {
		f.Close() // releases the flock
	}
	x.ck.locks, x.ck.dirs = nil, nil
}

// prepareDir creates dir if it is missing and checks that it is a
// directory this process can write to.
func prepareDir(dir string) error {
	fail := func(format string, a ...any) error {
		return fmt.Errorf("checker: checkpoint directory %s: "+format, append([]any{dir}, a...)...)
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fail("not a directory")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail("cannot create it: %v", err)
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fail("not writable: %v", err)
	}
	f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return fail("not writable: %v", err)
	}
	return nil
}

// lock takes the exclusive lock of dir, unless this search holds it
// already. A directory where no lock file can be created (read-only: no
// search can write checkpoints there) is left unlocked, unless write says
// the search writes there.
func (c *ckState) lock(dir string, write bool) error {
	fi, err := os.Stat(dir)
	if err != nil {
		if write {
			return fmt.Errorf("checker: checkpoint directory %s: %w", dir, err)
		}
		return fmt.Errorf("checker: resume from %s: %w", dir, err)
	}
	for _, d := range c.dirs {
		if os.SameFile(d, fi) {
			return nil
		}
	}
	c.dirs = append(c.dirs, fi)
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil && !write {
		f, err = os.Open(path)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
			return nil
		}
	}
	if err != nil {
		return fmt.Errorf("checker: checkpoint directory %s: cannot create its lock file: %w", dir, err)
	}
	ok, err := flockExclusive(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("checker: checkpoint directory %s: locking %s: %w", dir, lockFile, err)
	}
	if !ok {
		holder := "another process"
		if b, err := os.ReadFile(path); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
				holder = "process " + strconv.Itoa(pid)
				if pid == os.Getpid() {
					holder = "another search of this process"
				}
			}
		}
		f.Close()
		return fmt.Errorf("checker: checkpoint directory %s is in use by %s (it holds %s); wait for that search to end, or use another directory",
			dir, holder, path)
	}
	if f.Truncate(0) == nil { // not when opened read-only
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	c.locks = append(c.locks, f)
	return nil
}
