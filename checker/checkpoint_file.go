package checker

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The checkpoint file, shared by BFS and DFS. It is
//
//	format line   "ftkernel-checkpoint-2-bfs\n" or "ftkernel-checkpoint-2-dfs\n"
//	header        the model's name, the names of the selected properties,
//	              the settings that shape the search (symmetry, POR in
//	              effect, lassos) and the search's wall time up to the saved
//	              point, in nanoseconds
//	body          the search (checkpoint.go, checkpoint_dfs.go)
//	trailer       12 bytes: the length of everything before the trailer
//	              (uint64, little endian) and its CRC-32C (Castagnoli,
//	              uint32, little endian)
//
// with every integer of the header and body a uvarint. A resume verifies
// the format line, the length and the checksum before it reads anything
// else, so a truncated or altered file is refused before the search
// starts; then it checks that the header matches this search.

const (
	checkpointFile = "checkpoint.bin"
	ckMagicPrefix  = "ftkernel-checkpoint-"
	// checkpointMagic and dfsCheckpointMagic are the format lines of BFS
	// and DFS checkpoints; they have the same length so either reader can
	// name the other.
	checkpointMagic    = ckMagicPrefix + "2-bfs\n"
	dfsCheckpointMagic = ckMagicPrefix + "2-dfs\n"
	ckTrailerLen       = 12
)

var ckTable = crc32.MakeTable(crc32.Castagnoli)

// ckState is a search's hold on its checkpoint directories: the locks it
// took, the verified checkpoint it resumes from and the time carried over.
type ckState struct {
	locks []*os.File
	dirs  []os.FileInfo // the directories locked, or looked at and left unlocked
	file  *os.File      // Options.Resume's checkpoint, verified
	body  int64         // bytes of file before its trailer
	rest  *ckReader     // file after its header, once the header is checked
	prior time.Duration // wall time of the runs before, up to the saved point
	// levelAt is the search's wall time at the start of BFS's current
	// level, the time a checkpoint of that level saves.
	levelAt time.Duration
	// refused: the search was refused before it began (no last progress
	// report).
	refused bool
}

// elapsed is the search's wall time: the time carried over from the
// checkpoint it resumed plus this run's.
func (x *search[S]) elapsed() time.Duration {
	return x.ck.prior + time.Since(x.start)
}

// magic is the format line of this search's checkpoints.
func (x *search[S]) magic() string {
	if x.opt.Mode == DepthFirst {
		return dfsCheckpointMagic
	}
	return checkpointMagic
}

// refuse ends a search that could not begin.
func (x *search[S]) refuse(err error) *Result {
	x.ck.refused = true
	return x.finish(StopError, err)
}

// verifyResume opens the checkpoint of Options.Resume and verifies its
// format line, length and checksum; it reads nothing else.
func (x *search[S]) verifyResume() error {
	dir := x.opt.Resume
	if dir == "" {
		return nil
	}
	fail := func(format string, a ...any) error {
		return fmt.Errorf("checker: resume from %s: "+format, append([]any{dir}, a...)...)
	}
	f, err := os.Open(filepath.Join(dir, checkpointFile))
	if errors.Is(err, os.ErrNotExist) {
		return fail("no checkpoint there (%s is missing)", checkpointFile)
	}
	if err != nil {
		return fail("%v", err)
	}
	n, err := verifyCheckpoint(f, x.magic())
	if err != nil {
		f.Close()
		return fail("%v", err)
	}
	x.ck.file, x.ck.body = f, n
	return nil
}

// verifyCheckpoint checks that f starts with the format line magic and
// ends with a trailer that gives the length and the CRC-32C of the bytes
// before it. It returns that length.
func verifyCheckpoint(f *os.File, magic string) (int64, error) {
	head := make([]byte, len(magic))
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	if err := formatError(string(head), magic); err != nil {
		return 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	damaged := func(why string, a ...any) error {
		return fmt.Errorf("%s is damaged (%s); resume from an intact copy, or start the search again", checkpointFile, fmt.Sprintf(why, a...))
	}
	if size < int64(len(magic))+ckTrailerLen {
		return 0, damaged("%d bytes, too short", size)
	}
	var tr [ckTrailerLen]byte
	if _, err := f.ReadAt(tr[:], size-ckTrailerLen); err != nil {
		return 0, err
	}
	body := size - ckTrailerLen
	if binary.LittleEndian.Uint64(tr[:8]) != uint64(body) {
		return 0, damaged("%d bytes, not the length its trailer records: truncated or appended to", size)
	}
	h := crc32.New(ckTable)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, body)); err != nil {
		return 0, err
	}
	if h.Sum32() != binary.LittleEndian.Uint32(tr[8:]) {
		return 0, damaged("its CRC-32C checksum does not match its contents")
	}
	return body, nil
}

// formatError says why a file starting with head is not a checkpoint this
// search can read (its format line is magic), or returns nil.
func formatError(head, magic string) error {
	if head == magic {
		return nil
	}
	rest, ok := strings.CutPrefix(head, ckMagicPrefix)
	if !ok {
		return fmt.Errorf("%s is not a checkpoint", checkpointFile)
	}
	switch {
	case strings.HasPrefix(rest, "1\n"), strings.HasPrefix(rest, "D\n"):
		return errors.New("a checkpoint of format 1, written by an older ftkernel; this one reads format 2 only: start the search again")
	case rest == "2-bfs\n":
		return errors.New("a BFS checkpoint: resume it with BFS (without --dfs; Options.Mode BreadthFirst)")
	case rest == "2-dfs\n":
		return errors.New("a DFS checkpoint: resume it with DFS (--dfs; Options.Mode DepthFirst)")
	}
	v, _, _ := strings.Cut(rest, "\n")
	return fmt.Errorf("a checkpoint of format %q; this ftkernel reads format 2 only", v)
}

// ckHashWriter passes writes on to w, counting and summing them.
type ckHashWriter struct {
	w   io.Writer
	n   int64
	crc uint32
}

func (h *ckHashWriter) Write(p []byte) (int, error) {
	n, err := h.w.Write(p)
	h.crc = crc32.Update(h.crc, ckTable, p[:n])
	h.n += int64(n)
	return n, err
}

// saveCheckpoint writes a checkpoint atomically: its format line, the
// header, the body enc writes and the trailer go to a temporary file in
// Options.CheckpointDir, synced, then renamed over checkpointFile (and the
// directory synced): a reader sees the old checkpoint or the new one,
// never a part. elapsed is the search's wall time at the saved point.
func (x *search[S]) saveCheckpoint(elapsed time.Duration, enc func(*ckWriter) error) error {
	dir := x.opt.CheckpointDir
	f, err := os.CreateTemp(dir, "checkpoint-*.tmp")
	if err != nil {
		return fmt.Errorf("checker: checkpoint: %w", err)
	}
	defer os.Remove(f.Name()) // after the rename: nothing to remove
	h := &ckHashWriter{w: f}
	c := &ckWriter{w: bufio.NewWriterSize(h, 1<<20)}
	c.w.WriteString(x.magic())
	x.encodeHeader(c, elapsed)
	err = enc(c)
	if err == nil {
		err = c.w.Flush()
	}
	if err == nil {
		tr := binary.LittleEndian.AppendUint64(make([]byte, 0, ckTrailerLen), uint64(h.n))
		_, err = f.Write(binary.LittleEndian.AppendUint32(tr, h.crc))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, checkpointFile))
	}
	if err == nil {
		err = syncDir(dir)
	}
	if err != nil {
		return fmt.Errorf("checker: checkpoint: %w", err)
	}
	x.lastCkpt = time.Now()
	x.res.Checkpoints++
	return nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}

// ckSettings names the settings that shape the search, which a resume
// must share.
func (x *search[S]) ckSettings() string {
	return fmt.Sprintf("symmetry=%v por=%v lassos=%v", x.sym, x.res.POR, x.opt.Lassos)
}

// selectedNames lists the selected properties in the model's order.
func (x *search[S]) selectedNames() []string {
	var names []string
	for i, p := range x.ps.all {
		for _, l := range [][]int{x.ps.inv, x.ps.quiet, x.ps.trans, x.ps.ev} {
			if slices.Contains(l, i) {
				names = append(names, p.Name)
				break
			}
		}
	}
	return names
}

// encodeHeader writes the model's name, the selected properties, the
// settings and the wall time.
func (x *search[S]) encodeHeader(c *ckWriter, elapsed time.Duration) {
	c.bytes([]byte(x.m.Name()))
	names := x.selectedNames()
	c.uint(uint64(len(names)))
	for _, n := range names {
		c.bytes([]byte(n))
	}
	c.bytes([]byte(x.ckSettings()))
	c.uint(uint64(max(elapsed, 0)))
}

// openBody returns a reader of the verified checkpoint's header and body.
func (x *search[S]) openBody() *ckReader {
	m := int64(len(x.magic()))
	return &ckReader{r: bufio.NewReaderSize(io.NewSectionReader(x.ck.file, m, x.ck.body-m), 1<<20)}
}

// readHeader reads the header and checks that it is this search's: the
// same model (its name gives its parameters), the same selected
// properties (a property the saved part of the search did not check would
// be reported as holding) and the same settings. Options.Workers may
// differ: results do not depend on it. It sets the carried-over time.
func (x *search[S]) readHeader(c *ckReader) {
	name := string(c.bytes(1 << 16))
	if c.err == nil && name != x.m.Name() {
		c.err = fmt.Errorf("the checkpoint is of %q, not of %q (the model and its flags must be those of the run that wrote it)", name, x.m.Name())
	}
	var names []string
	for n := c.small(1<<16, "property count"); n > 0 && c.err == nil; n-- {
		names = append(names, string(c.bytes(1<<16)))
	}
	if want := x.selectedNames(); c.err == nil && strings.Join(names, ",") != strings.Join(want, ",") {
		c.err = fmt.Errorf("the checkpoint checked the properties %s, this search selects %s (--property, Options.Properties: select the same ones)",
			listOrNone(names), listOrNone(want))
	}
	settings := string(c.bytes(1 << 10))
	if c.err == nil && settings != x.ckSettings() {
		c.err = fmt.Errorf("the checkpoint was written with %s, this search runs with %s (--symmetry, --por, --lassos must be those of the run that wrote it)",
			settings, x.ckSettings())
	}
	prior := time.Duration(c.uint())
	if c.err == nil {
		x.ck.prior = prior
		x.res.ResumedSeconds = prior.Seconds()
	}
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ",")
}

// resumeError is a failure to read the checkpoint of Options.Resume.
func (x *search[S]) resumeError(err error) error {
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("checker: resume from %s: %w", x.opt.Resume, err)
}

// endOfBody checks that c has read the body to its end.
func (c *ckReader) endOfBody() {
	if c.err == nil {
		if _, err := c.r.ReadByte(); err != io.EOF {
			c.err = errors.New("trailing bytes")
		}
	}
}
