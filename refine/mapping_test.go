package refine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/hwepoch/hwepoch/impl/cluster"
	"github.com/hwepoch/hwepoch/model"
	"github.com/hwepoch/hwepoch/refine/freerun"
)

// docs/mapping.md stays complete and true: every spec variable has a row in
// the variables table and every action one in the actions table, every
// free-run gap the validator counts is documented, and every Go identifier
// the page names (package.Name or package.Type.Member, in backticks) exists
// in the source.
func TestMappingDocIsComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docs", "mapping.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, v := range model.VarNames {
		if !strings.Contains(doc, "| `"+v+"` |") {
			t.Errorf("docs/mapping.md: the variables table has no row for %s", v)
		}
	}
	for _, k := range model.ActionKinds() {
		if !strings.Contains(doc, "| `"+k.String()+"(") {
			t.Errorf("docs/mapping.md: the actions table has no row for %s", k)
		}
	}
	for _, g := range []string{freerun.GapRecordIDs, freerun.GapIsrCommitEarly, freerun.GapIsrNoApply, freerun.GapIsrSplit,
		freerun.GapIsrBeforeElect, freerun.GapMaximalIsr, freerun.GapLateRequest, freerun.GapStaleRequest,
		freerun.GapStaleEffect, freerun.GapCrashEarly, freerun.GapOtherPartitions} {
		if !strings.Contains(doc, "| "+g+" |") {
			t.Errorf("docs/mapping.md: the free-run gaps table has no row for %q", g)
		}
	}
	decls := map[string]map[string]bool{}
	for pkg, dir := range map[string]string{
		"model": "model", "cluster": "impl/cluster", "broker": "impl/broker", "fetcher": "impl/fetcher",
		"storage": "impl/storage", "controller": "impl/controller", "protocol": "impl/protocol",
		"refine": "refine", "freerun": "refine/freerun",
	} {
		decls[pkg] = declared(t, filepath.Join("..", dir))
	}
	ident := regexp.MustCompile(`\b(model|cluster|broker|fetcher|storage|controller|protocol|refine|freerun)\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)`)
	named := 0
	for _, span := range regexp.MustCompile("`[^`]+`").FindAllString(doc, -1) {
		for _, m := range ident.FindAllStringSubmatch(span, -1) {
			named++
			if !decls[m[1]][m[2]] {
				t.Errorf("docs/mapping.md names %s.%s, which package %s does not declare", m[1], m[2], m[1])
			}
		}
	}
	// The other direction: every field of the snapshot types the
	// abstraction reads from is named, as a spec variable's twin or as
	// implementation state the spec does not have.
	for _, v := range []any{cluster.PartitionSnapshot{}, cluster.ControllerSnapshot{}, cluster.NetworkSnapshot{}, cluster.ProducerSnapshot{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			name := "cluster." + typ.Name() + "." + typ.Field(i).Name
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/mapping.md does not name %s: map it to a spec variable or list it as implementation state the spec does not have", name)
			}
		}
	}
	if named < 50 {
		t.Errorf("docs/mapping.md names only %d Go identifiers: the tables lost their references", named)
	}
}

// declared lists what a package's non-test files declare: functions, types,
// variables and constants by name, methods and struct fields as Type.Name.
func declared(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: no Go files (%v)", dir, err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					out[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					out[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						out[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, fld := range st.Fields.List {
								for _, n := range fld.Names {
									out[s.Name.Name+"."+n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							out[n.Name] = true
						}
					}
				}
			}
		}
	}
	return out
}
