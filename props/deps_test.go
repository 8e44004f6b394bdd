package props

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPropsKnowNoProtocol is the dependency rule of the library: props
// imports no protocol (statemachine/*) and no model (models/*).
func TestPropsKnowNoProtocol(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		ast, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range ast.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			n++
			if strings.Contains(p, "/ftkernel/statemachine") || strings.Contains(p, "/ftkernel/models") || strings.HasSuffix(p, "/ftkernel/registry") {
				t.Errorf("%s imports %s", f, p)
			}
		}
	}
	if n == 0 {
		t.Fatal("no imports read")
	}
}
