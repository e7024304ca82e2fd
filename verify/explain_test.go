package verify

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestEveryCodeExplained finds every Code constant in the package's source
// and checks that it has one explanation, listed in the package comment
// with the same severity, and that nothing else is explained.
func TestEveryCodeExplained(t *testing.T) {
	fset := token.NewFileSet()
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, name := range sources {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file)
	}
	var codes []string
	var doc string
	for _, file := range files {
		if file.Doc != nil {
			doc += file.Doc.Text()
		}
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, name := range vs.Names {
					if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
						code, _ := strconv.Unquote(lit.Value)
						codes = append(codes, code)
					}
				}
			}
		}
	}
	if len(codes) < 20 {
		t.Fatalf("found only %d codes", len(codes))
	}
	listed := regexp.MustCompile(`(?m)^\s*([a-z-]+)\s+(error|warning|info)\s`)
	docSeverity := map[string]string{}
	for _, m := range listed.FindAllStringSubmatch(doc, -1) {
		docSeverity[m[1]] = m[2]
	}
	for _, code := range codes {
		e, ok := Explain(code)
		switch {
		case !ok:
			t.Errorf("%s has no explanation", code)
		case e.Meaning == "" || e.Why == "" || e.Arises == "":
			t.Errorf("%s: incomplete explanation %+v", code, e)
		case docSeverity[code] != e.Severity.String():
			t.Errorf("%s: explained as %s, the package comment lists %q", code, e.Severity, docSeverity[code])
		}
	}
	if len(Explanations()) != len(codes) {
		t.Errorf("%d explanations for %d codes", len(Explanations()), len(codes))
	}
}
