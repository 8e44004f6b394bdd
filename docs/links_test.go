// Package docs holds the project's Markdown documentation. It has no Go
// code; its test checks the links of every Markdown file in the module.
package docs

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// root is the module's root, seen from this package's directory.
const root = ".."

// TestLinks parses every *.md file of the module (README.md, docs/,
// tla/README.md, fuzz/README.md, …) and fails on each relative link or
// image whose target file is missing, whose target lies outside the
// module (a file that a clone does not have), or whose #anchor names no
// heading of the target Markdown file (GitHub's heading ids: lower case,
// punctuation removed, spaces to hyphens, "-1", "-2" … for repeats).
// Links inside fenced code blocks and code spans are not links and are
// skipped; links with a scheme (https:, mailto:) are not fetched.
func TestLinks(t *testing.T) {
	files := markdownFiles(t)
	if len(files) == 0 {
		t.Fatal("no Markdown files found")
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		a := headingAnchors(string(b))
		anchors[path] = a
		return a
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, file)
		for _, l := range links(string(b)) {
			if err := checkLink(absRoot, file, l.target, anchorsOf); err != nil {
				t.Errorf("%s:%d: link %q: %v", filepath.ToSlash(rel), l.line, l.target, err)
			}
		}
	}
}

// checkLink reports what is wrong with the link target found in file, or nil.
func checkLink(absRoot, file, target string, anchorsOf func(string) map[string]bool) error {
	if target == "" {
		return fmt.Errorf("empty target")
	}
	if u, err := url.Parse(target); err == nil && u.Scheme != "" {
		return nil // https:, mailto: …: not checked here
	}
	path, frag, _ := strings.Cut(target, "#")
	if p, err := url.PathUnescape(path); err == nil {
		path = p
	}
	dest := file
	if path != "" {
		if strings.HasPrefix(path, "/") {
			dest = filepath.Join(absRoot, filepath.FromSlash(path))
		} else {
			dest = filepath.Join(filepath.Dir(file), filepath.FromSlash(path))
		}
	}
	absDest, err := filepath.Abs(dest)
	if err != nil {
		return err
	}
	if r, err := filepath.Rel(absRoot, absDest); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return fmt.Errorf("points outside the module (%s)", absDest)
	}
	info, err := os.Stat(absDest)
	if err != nil {
		return fmt.Errorf("no such file")
	}
	if frag == "" || info.IsDir() || !strings.EqualFold(filepath.Ext(absDest), ".md") {
		return nil
	}
	if !anchorsOf(dest)[frag] {
		return fmt.Errorf("no heading or anchor #%s in %s", frag, filepath.Base(dest))
	}
	return nil
}

// markdownFiles lists the *.md files under root, leaving out hidden
// directories (.git, .ci) and node_modules.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.EqualFold(filepath.Ext(path), ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

type link struct {
	line   int
	target string
}

var (
	fence       = regexp.MustCompile("^\\s{0,3}(```+|~~~+)")
	inlineLink  = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	refDef      = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	htmlAttr    = regexp.MustCompile(`(?i)<(?:a|img)\s[^>]*\b(?:href|src)\s*=\s*"([^"]*)"`)
	atxHeading  = regexp.MustCompile(`^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	htmlAnchor  = regexp.MustCompile(`(?i)<a\s[^>]*\b(?:name|id)\s*=\s*"([^"]*)"`)
	htmlTag     = regexp.MustCompile(`<[^>]*>`)
	headingLink = regexp.MustCompile(`!?\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\([^)]*\)`)
)

// proseLines returns the lines of a Markdown text with those of fenced
// code blocks (their fences included) blanked, so that line i+1 of the
// text is element i.
func proseLines(text string) []string {
	lines := strings.Split(text, "\n")
	inFence := ""
	for i, line := range lines {
		if m := fence.FindStringSubmatch(line); m != nil {
			marker := m[1][:3]
			switch {
			case inFence == "":
				inFence = marker
			case inFence == marker:
				inFence = ""
			}
			lines[i] = ""
			continue
		}
		if inFence != "" {
			lines[i] = ""
		}
	}
	return lines
}

// links returns the link and image targets of a Markdown text, outside
// fenced code blocks and code spans.
func links(text string) []link {
	var out []link
	for i, line := range proseLines(text) {
		if line == "" {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{i + 1, m[1]})
		}
		for _, m := range htmlAttr.FindAllStringSubmatch(line, -1) {
			out = append(out, link{i + 1, m[1]})
		}
	}
	return out
}

// stripCodeSpans removes the code spans of one line (a run of n
// backticks up to the next run of n backticks).
func stripCodeSpans(line string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(line, '`')
		if i < 0 {
			b.WriteString(line)
			return b.String()
		}
		b.WriteString(line[:i])
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		rest := line[i+n:]
		ticks := strings.Repeat("`", n)
		j := strings.Index(rest, ticks)
		for j >= 0 && j+n < len(rest) && rest[j+n] == '`' {
			k := strings.Index(rest[j+n:], ticks)
			if k < 0 {
				j = -1
				break
			}
			j += n + k
		}
		if j < 0 {
			b.WriteString(line[i:])
			return b.String()
		}
		line = rest[j+n:]
	}
}

// headingAnchors returns the ids GitHub gives the headings of a Markdown
// text, and the explicit <a name="…"> / id="…" anchors.
func headingAnchors(text string) map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			ids[m[1]] = true
		}
		m := atxHeading.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		slug := Slug(m[2])
		id := slug
		if n := seen[slug]; n > 0 {
			id = fmt.Sprintf("%s-%d", slug, n)
		}
		seen[slug]++
		ids[id] = true
	}
	return ids
}

// Slug is GitHub's id for a heading's Markdown text: the rendered text
// (code spans' backticks, link targets, HTML tags and emphasis markers
// gone) in lower case, every character that is not a letter, a mark, a
// digit, a connector (_), a hyphen or a space removed, and each space
// turned into a hyphen.
func Slug(heading string) string {
	s := headingLink.ReplaceAllString(heading, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "`", "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r) || unicode.In(r, unicode.Pc):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestSlug pins Slug on headings whose GitHub ids are known.
func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, id string }{
		{"The main job", "the-main-job"},
		{"Literature search: Corrected Gossip and failure-proof correction (§3.1, Lemma 2)", "literature-search-corrected-gossip-and-failure-proof-correction-31-lemma-2"},
		{"X/Y trees, rebalancing and the §1.1 semantics", "xy-trees-rebalancing-and-the-11-semantics"},
		{"`--dfs --por`: persistent sets", "--dfs---por-persistent-sets"},
		{"[Mutants](#mutants) of `era_go.qnt`", "mutants-of-era_goqnt"},
		{"**Bold** and *emphasis*", "bold-and-emphasis"},
	} {
		if got := Slug(c.heading); got != c.id {
			t.Errorf("Slug(%q) = %q, want %q", c.heading, got, c.id)
		}
	}
}
