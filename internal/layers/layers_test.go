package layers

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/dshlog/dshlog/"

// forbidden lists, for the packages under a directory, the directories whose
// packages they must not import, test files included.
var forbidden = []struct {
	under   string
	imports []string
}{
	{"session", []string{"codec", "migrate"}},
	{"codec", []string{"migrate"}},
}

// moduleImports returns, for each Go file of the module, the module
// packages it imports, relative to the module root.
func moduleImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	files := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files[rel] = nil
		for _, spec := range f.Imports {
			imp, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				return err
			}
			if pkg, ok := strings.CutPrefix(imp, module); ok {
				files[rel] = append(files[rel], pkg)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// within reports whether the file or package path lies in directory dir.
func within(path, dir string) bool { return path == dir || strings.HasPrefix(path, dir+"/") }

func TestArrowsPointDown(t *testing.T) {
	files := moduleImports(t, filepath.Join("..", ".."))
	for _, rule := range forbidden {
		seen := 0
		for file, imports := range files {
			if !within(file, rule.under) {
				continue
			}
			seen++
			for _, imp := range imports {
				for _, above := range rule.imports {
					if within(imp, above) {
						t.Errorf("%s imports %s: packages under %s/ must not import any under %s/", file, imp, rule.under, above)
					}
				}
			}
		}
		if seen == 0 {
			t.Errorf("no Go files found under %s/", rule.under)
		}
	}
}
