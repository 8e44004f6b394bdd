package core

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
)

// declaredKinds parses the package's source and returns the names of the
// constants declared with type EventKind or EffectKind (an iota block's
// later names inherit the type), and the package documentation of doc.go.
func declaredKinds(t *testing.T) (kinds map[string][]string, pkgDoc string) {
	t.Helper()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	kinds = map[string][]string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if name == "doc.go" && f.Doc != nil {
			pkgDoc = f.Doc.Text()
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			typ := ""
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if v.Type != nil {
					typ = ""
					if id, ok := v.Type.(*ast.Ident); ok {
						typ = id.Name
					}
				} else if len(v.Values) > 0 {
					typ = ""
				}
				if typ == "EventKind" || typ == "EffectKind" {
					for _, n := range v.Names {
						kinds[typ] = append(kinds[typ], n.Name)
					}
				}
			}
		}
	}
	if pkgDoc == "" {
		t.Fatal("doc.go has no package documentation")
	}
	return kinds, pkgDoc
}

// named returns the String of every value of a kind type that names a
// kind, that is, whose String is not the fallback "Type(n)".
func named(str func(uint8) string, typ string) []string {
	var out []string
	for i := range 256 {
		if s := str(uint8(i)); !strings.HasPrefix(s, typ+"(") {
			out = append(out, s)
		}
	}
	return out
}

// TestKindsNamedAndDocumented: every EventKind and EffectKind constant has
// its own String, and is a row of the package documentation's tables (so
// that go doc ./core lists it with what a runtime does with it).
func TestKindsNamedAndDocumented(t *testing.T) {
	kinds, pkgDoc := declaredKinds(t)
	strs := map[string][]string{
		"EventKind":  named(func(i uint8) string { return EventKind(i).String() }, "EventKind"),
		"EffectKind": named(func(i uint8) string { return EffectKind(i).String() }, "EffectKind"),
	}
	rows := map[string]bool{}
	for line := range strings.SplitSeq(pkgDoc, "\n") {
		if f := strings.Fields(line); len(f) > 1 && strings.HasPrefix(line, "\t") {
			rows[f[0]] = true
		}
	}
	for _, typ := range slices.Sorted(maps.Keys(strs)) {
		decl := slices.Sorted(slices.Values(kinds[typ]))
		got := slices.Sorted(slices.Values(strs[typ]))
		if len(decl) == 0 {
			t.Errorf("no %s constant found in the source", typ)
		}
		if !slices.Equal(decl, got) {
			t.Errorf("%s constants %v, but String names %v", typ, decl, got)
		}
		for _, k := range decl {
			if !rows[k] {
				t.Errorf("%s %s is not a row of the tables in doc.go's package documentation", typ, k)
			}
		}
	}
}
