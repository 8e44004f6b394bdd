package statemachine_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/ftkernel/ftkernel/"

// imports lists, per package directory under root, the imports of its
// non-test Go files.
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	return importsOf(t, root, false)
}

// importsOf is imports, with the _test.go files too when tests is set.
func importsOf(t *testing.T, root string, tests bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || (!tests && strings.HasSuffix(path, "_test.go")) {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			out[filepath.Dir(path)] = append(out[filepath.Dir(path)], p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func stdlib(p string) bool { return !strings.Contains(strings.SplitN(p, "/", 2)[0], ".") }

// TestStatemachinesImportOnlyCore is the dependency rule: a protocol package
// imports only core, the standard library and internal/mutant (which no
// program outside this module can import, so no embedder can switch a
// broken variant on).
func TestStatemachinesImportOnlyCore(t *testing.T) {
	n := 0
	for dir, imps := range imports(t, ".") {
		for _, p := range imps {
			n++
			if stdlib(p) || p == module+"core" || p == module+"internal/mutant" {
				continue
			}
			t.Errorf("%s imports %s: a protocol may import only core and the standard library", dir, p)
		}
	}
	if n == 0 {
		t.Fatal("found no imports at all: is the test looking at the right folder?")
	}
}

// TestCoreImportsOnlyStdlib: the contract itself depends on nothing.
func TestCoreImportsOnlyStdlib(t *testing.T) {
	for dir, imps := range imports(t, "../core") {
		for _, p := range imps {
			if !stdlib(p) {
				t.Errorf("%s imports %s: core must use the standard library only", dir, p)
			}
		}
	}
}

// TestCheckerNeverImportsAProtocol: the checker explores models; it never
// knows a protocol, and protocols never know the checker.
func TestCheckerNeverImportsAProtocol(t *testing.T) {
	if _, err := os.Stat("../checker"); err != nil {
		t.Skip("no checker yet")
	}
	for dir, imps := range imports(t, "../checker") {
		for _, p := range imps {
			for _, banned := range []string{"statemachine", "props", "registry", "cmd", "linearize", "fuzz"} {
				if strings.HasPrefix(p, module+banned) {
					t.Errorf("%s imports %s: the checker must not import protocols or properties", dir, p)
				}
			}
		}
	}
}

// banned reports every import under root (with its tests when tests is set)
// that starts with module+one of prefixes, naming the rule broken; it fails
// when root has no imports at all (a test looking at the wrong folder).
func banned(t *testing.T, root string, tests bool, rule string, prefixes ...string) {
	t.Helper()
	n := 0
	for dir, imps := range importsOf(t, root, tests) {
		for _, p := range imps {
			n++
			for _, b := range prefixes {
				if p == module+b || strings.HasPrefix(p, module+b+"/") {
					t.Errorf("%s imports %s: %s", dir, p, rule)
				}
			}
		}
	}
	if n == 0 {
		t.Fatalf("found no imports under %s: is the test looking at the right folder?", root)
	}
}

// TestPropsKnowNoProtocol: the property library imports no protocol
// (statemachine/*), no model (models/*) and not the registry, in its tests
// too.
func TestPropsKnowNoProtocol(t *testing.T) {
	banned(t, "../props", true, "props must know no protocol", "statemachine", "models", "registry")
}

// TestRegistryImportsNoModel: the registry knows no protocol; models
// register themselves (models/all imports them).
func TestRegistryImportsNoModel(t *testing.T) {
	banned(t, "../registry", false, "the registry must import no model", "models", "statemachine", "props")
}
