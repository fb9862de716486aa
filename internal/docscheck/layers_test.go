package docscheck

import (
	"go/build"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/loopbreaker/loopbreaker"

// modulePackages returns every package of the module that has non-test Go
// files, by its short name (the import path less the module and
// "internal/"; the command is "loopbreaker"), with the short names of the
// module's packages it imports.
func modulePackages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); p != root && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(p, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil
			}
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		name := short(path.Join(module, filepath.ToSlash(rel)))
		var imports []string
		for _, imp := range pkg.Imports {
			if imp == module || strings.HasPrefix(imp, module+"/") {
				imports = append(imports, short(imp))
			}
		}
		out[name] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func short(importPath string) string {
	if importPath == module {
		return "loopbreaker"
	}
	s := strings.TrimPrefix(importPath, module+"/")
	return strings.TrimPrefix(s, "internal/")
}

// TestArchitectureDrawsEveryPackage holds docs/architecture.md's table of
// packages to the code: every package of the module has its row, each row
// lists exactly the module's packages it imports ("evidence/*" standing for
// the evidence readers), and every import of a package of the binary points
// to a row above its own.
func TestArchitectureDrawsEveryPackage(t *testing.T) {
	tb := tableUnder(t, readPage(t, "docs/architecture.md"), "Packages and layers", "Package")
	code := modulePackages(t)
	row := map[string]int{}
	binary := map[string]bool{} // the rows above the "Not in the binary" divider
	divided := false
	for i, r := range tb.rows {
		if len(r) < 3 || !strings.HasPrefix(r[0], "`") {
			divided = true
			continue
		}
		name := short(module + "/" + strings.Trim(strings.Fields(r[0])[0], "`"))
		if _, twice := row[name]; twice {
			t.Errorf("architecture.md lists %s twice", name)
		}
		row[name] = i
		binary[name] = !divided
		imports, ok := code[name]
		if !ok {
			t.Errorf("architecture.md lists %s, which is not a package of the module", name)
			continue
		}
		var listed []string
		for _, f := range strings.Split(r[2], ",") {
			if f = strings.Trim(strings.TrimSpace(f), "`"); f != "" && f != "—" {
				listed = append(listed, f)
			}
		}
		var got []string
		for _, imp := range imports {
			if slices.Contains(listed, "evidence/*") && strings.HasPrefix(imp, "evidence/") {
				imp = "evidence/*"
			}
			if !slices.Contains(got, imp) {
				got = append(got, imp)
			}
		}
		slices.Sort(got)
		slices.Sort(listed)
		if !slices.Equal(got, listed) {
			t.Errorf("architecture.md: %s imports %q, the table says %q", name, got, listed)
		}
	}
	for name := range code {
		if _, ok := row[name]; !ok {
			t.Errorf("architecture.md does not list the package %s", name)
		}
	}
	for name, imports := range code {
		if !binary[name] {
			continue
		}
		for _, imp := range imports {
			if row[imp] >= row[name] {
				t.Errorf("architecture.md: %s imports %s, which is not in a row above it", name, imp)
			}
		}
	}
}
