package registry

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRegistryImportsNoModel: registry knows no protocol; models register
// themselves (models/all imports them).
func TestRegistryImportsNoModel(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			n++
			if strings.Contains(p, "/ftkernel/models/") || strings.Contains(p, "/ftkernel/statemachine/") || strings.HasSuffix(p, "/ftkernel/props") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no imports read")
	}
}
