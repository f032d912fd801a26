package validate

import (
	"bufio"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Module is one module of the workspace (go.work).
type Module struct {
	Dir  string // relative to the repository's root, slash-separated, e.g. services/fees
	Path string // the module path
	// Requires are the paths of the workspace modules this one requires (its go.mod).
	Requires []string
}

// Workspace is the repository's go.work and its modules.
type Workspace struct {
	Root    string
	Modules []Module
}

// LoadWorkspace reads root/go.work and each module's go.mod.
func LoadWorkspace(root string) (*Workspace, error) {
	dirs, err := workUses(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, err
	}
	w := &Workspace{Root: root}
	for _, d := range dirs {
		modPath, reqs, err := readGoMod(filepath.Join(root, filepath.FromSlash(d), "go.mod"))
		if err != nil {
			return nil, err
		}
		w.Modules = append(w.Modules, Module{Dir: d, Path: modPath, Requires: reqs})
	}
	// Keep only requirements that are workspace modules.
	known := map[string]bool{}
	for _, m := range w.Modules {
		known[m.Path] = true
	}
	for i := range w.Modules {
		var in []string
		for _, r := range w.Modules[i].Requires {
			if known[r] {
				in = append(in, r)
			}
		}
		w.Modules[i].Requires = in
	}
	return w, nil
}

// workUses reads the use directives of a go.work file.
func workUses(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // the file is only read; its Close error says nothing
	var out []string
	inBlock := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(stripComment(sc.Text()))
		switch {
		case line == "":
		case inBlock && line == ")":
			inBlock = false
		case inBlock:
			out = append(out, cleanDir(line))
		case line == "use (":
			inBlock = true
		case strings.HasPrefix(line, "use "):
			out = append(out, cleanDir(strings.TrimSpace(strings.TrimPrefix(line, "use "))))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no use directives", file)
	}
	return out, nil
}

func stripComment(s string) string {
	if i := strings.Index(s, "//"); i >= 0 {
		return s[:i]
	}
	return s
}

func cleanDir(s string) string {
	if u, err := strconv.Unquote(s); err == nil { // quoted or not
		s = u
	}
	return path.Clean(strings.TrimPrefix(s, "./"))
}

// readGoMod returns a go.mod's module path and every module it requires.
func readGoMod(file string) (string, []string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", nil, err
	}
	var modPath string
	var reqs []string
	inRequire := false
	for _, raw := range strings.Split(string(data), "\n") {
		line := strings.TrimSpace(stripComment(raw))
		fields := strings.Fields(line)
		switch {
		case len(fields) == 0:
		case fields[0] == "module" && len(fields) == 2:
			modPath = strings.Trim(fields[1], `"`)
		case line == "require (":
			inRequire = true
		case inRequire && line == ")":
			inRequire = false
		case inRequire:
			reqs = append(reqs, fields[0])
		case fields[0] == "require" && len(fields) >= 3:
			reqs = append(reqs, fields[1])
		}
	}
	if modPath == "" {
		return "", nil, fmt.Errorf("%s: no module line", file)
	}
	return modPath, reqs, nil
}

// ModuleOf returns the workspace module holding the repository-relative directory dir.
func (w *Workspace) ModuleOf(dir string) (Module, bool) {
	best := -1
	for i, m := range w.Modules {
		if dir == m.Dir || strings.HasPrefix(dir, m.Dir+"/") {
			if best < 0 || len(m.Dir) > len(w.Modules[best].Dir) {
				best = i
			}
		}
	}
	if best < 0 {
		return Module{}, false
	}
	return w.Modules[best], true
}

// Closure lists the directories of module m and of every workspace module it requires,
// directly or not, sorted.
func (w *Workspace) Closure(m Module) []string {
	byPath := map[string]Module{}
	for _, x := range w.Modules {
		byPath[x.Path] = x
	}
	seen := map[string]bool{}
	var visit func(Module)
	visit = func(x Module) {
		if seen[x.Dir] {
			return
		}
		seen[x.Dir] = true
		for _, r := range x.Requires {
			visit(byPath[r])
		}
	}
	visit(m)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// dirOfImport maps an import path to its repository-relative directory, or "" when the
// package is not in the workspace.
func (w *Workspace) dirOfImport(importPath string) string {
	best := ""
	bestDir := ""
	for _, m := range w.Modules {
		if (importPath == m.Path || strings.HasPrefix(importPath, m.Path+"/")) && len(m.Path) > len(best) {
			best = m.Path
			bestDir = path.Join(m.Dir, strings.TrimPrefix(strings.TrimPrefix(importPath, m.Path), "/"))
		}
	}
	return bestDir
}

// EnvVar is one environment variable a binary reads, from an `env:"…"` struct tag.
type EnvVar struct {
	Name       string // the full name, prefix applied
	Required   bool   // required:"true" and no default: the binary refuses to start without it
	Secret     bool   // secret:"true"
	Default    string
	HasDefault bool
	NoPrefix   bool
	Where      string // file:line of the field
}

// Config is a binary's configuration as read from its source.
type Config struct {
	Binary string
	Prefix string
	Vars   []EnvVar
}

// Var returns the variable named name.
func (c Config) Var(name string) (EnvVar, bool) {
	for _, v := range c.Vars {
		if v.Name == name {
			return v, true
		}
	}
	return EnvVar{}, false
}

type goPackage struct {
	dir   string
	name  string
	files []*ast.File
	fset  *token.FileSet
}

type sourceLoader struct {
	ws   *Workspace
	fset *token.FileSet
	pkgs map[string]*goPackage
}

func (l *sourceLoader) load(dir string) (*goPackage, error) {
	if p, ok := l.pkgs[dir]; ok {
		return p, nil
	}
	abs := filepath.Join(l.ws.Root, filepath.FromSlash(dir))
	entries, err := os.ReadDir(abs)
	if err != nil {
		return nil, err
	}
	p := &goPackage{dir: dir, fset: l.fset}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(l.fset, filepath.Join(abs, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		p.files = append(p.files, f)
		p.name = f.Name.Name
	}
	if len(p.files) == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	l.pkgs[dir] = p
	return p, nil
}

// importDir resolves the package name used in file to a workspace directory ("" when the
// package is outside the workspace, such as time).
func (l *sourceLoader) importDir(file *ast.File, name string) (string, error) {
	for _, imp := range file.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		dir := l.ws.dirOfImport(ip)
		if imp.Name != nil {
			if imp.Name.Name == name {
				return dir, nil
			}
			continue
		}
		if dir == "" {
			if path.Base(ip) == name {
				return "", nil
			}
			continue
		}
		p, err := l.load(dir)
		if err != nil {
			return "", err
		}
		if p.name == name {
			return dir, nil
		}
	}
	return "", fmt.Errorf("package %s is not imported", name)
}

// findType returns the declaration of type name in package p, and its file.
func findType(p *goPackage, name string) (*ast.TypeSpec, *ast.File) {
	for _, f := range p.files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.TYPE {
				continue
			}
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); ts.Name.Name == name {
					return ts, f
				}
			}
		}
	}
	return nil, nil
}

// ReadConfig finds the configuration of the binary whose main package is mainDir
// (repository-relative): the struct its variables are loaded into, and their prefix, read in
// the main package: the type of its `var cfg T`, with the prefix from `service.Spec{Name: "…"}`
// (the service's name, upper-cased) or `config.Load("PREFIX", …)`.
// It walks the struct as the platform's config package does: env-tagged fields are variables,
// untagged struct fields (embedded service.Base, groups) are walked.
func ReadConfig(ws *Workspace, binary, mainDir string) (Config, error) {
	l := &sourceLoader{ws: ws, fset: token.NewFileSet(), pkgs: map[string]*goPackage{}}
	mainPkg, err := l.load(mainDir)
	if err != nil {
		return Config{}, err
	}
	var (
		cfgType ast.Expr
		cfgFile *ast.File
		prefix  string
	)
	for _, f := range mainPkg.files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for _, id := range n.Names {
					if id.Name == "cfg" && n.Type != nil && cfgType == nil {
						cfgType, cfgFile = n.Type, f
					}
				}
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Spec" {
					for _, e := range n.Elts {
						kv, ok := e.(*ast.KeyValueExpr)
						if !ok {
							continue
						}
						if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Name" {
							if lit, ok := kv.Value.(*ast.BasicLit); ok && lit.Kind == token.STRING {
								s, _ := strconv.Unquote(lit.Value)
								prefix = strings.ToUpper(s)
							}
						}
					}
				}
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Load" && len(n.Args) == 2 {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "config" {
						if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING && prefix == "" {
							prefix, _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
			return true
		})
	}
	// Every binary wires itself in its main package (services/README.md), so its configuration
	// is read there.
	if cfgType == nil {
		return Config{}, fmt.Errorf("%s: no `var cfg T` in the main package %s", binary, mainDir)
	}
	if prefix == "" {
		return Config{}, fmt.Errorf("%s: no service.Spec{Name: …} or config.Load(\"PREFIX\", …) in %s", binary, mainDir)
	}
	pkg := mainPkg
	c := Config{Binary: binary, Prefix: prefix}
	if err := l.walkType(pkg, cfgFile, cfgType, prefix, &c.Vars, 0); err != nil {
		return Config{}, fmt.Errorf("%s: %w", binary, err)
	}
	if len(c.Vars) == 0 {
		return Config{}, fmt.Errorf("%s: the configuration struct has no env-tagged fields", binary)
	}
	seen := map[string]bool{}
	for _, v := range c.Vars {
		if seen[v.Name] {
			return Config{}, fmt.Errorf("%s: variable %s is read by two fields", binary, v.Name)
		}
		seen[v.Name] = true
	}
	return c, nil
}

var errNotStruct = errors.New("not a struct")

// walkType walks the struct that expr (a type expression used in file of package p) names.
// Types outside the workspace and non-struct types are skipped, as the config package skips
// them (it walks struct-kinded fields only).
func (l *sourceLoader) walkType(p *goPackage, file *ast.File, expr ast.Expr, prefix string, out *[]EnvVar, depth int) error {
	if depth > 10 {
		return errors.New("configuration structs nest too deeply")
	}
	switch t := expr.(type) {
	case *ast.StructType:
		return l.walkStruct(p, file, t, prefix, out, depth)
	case *ast.Ident:
		ts, f := findType(p, t.Name)
		if ts == nil {
			return nil // a predeclared type
		}
		return l.walkType(p, f, ts.Type, prefix, out, depth+1)
	case *ast.SelectorExpr:
		pkgName, ok := t.X.(*ast.Ident)
		if !ok {
			return nil
		}
		dir, err := l.importDir(file, pkgName.Name)
		if err != nil {
			return err
		}
		if dir == "" {
			return nil // outside the workspace (time.Duration, …)
		}
		q, err := l.load(dir)
		if err != nil {
			return err
		}
		ts, f := findType(q, t.Sel.Name)
		if ts == nil {
			return fmt.Errorf("type %s.%s not found in %s", pkgName.Name, t.Sel.Name, dir)
		}
		return l.walkType(q, f, ts.Type, prefix, out, depth+1)
	default:
		return nil // pointers, slices, maps, funcs: not walked
	}
}

func (l *sourceLoader) walkStruct(p *goPackage, file *ast.File, st *ast.StructType, prefix string, out *[]EnvVar, depth int) error {
	for _, field := range st.Fields.List {
		var tag reflect.StructTag
		if field.Tag != nil {
			s, err := strconv.Unquote(field.Tag.Value)
			if err != nil {
				return err
			}
			tag = reflect.StructTag(s)
		}
		exported := false
		if len(field.Names) == 0 { // embedded: exported when its type name is
			exported = ast.IsExported(typeName(field.Type))
		}
		for _, n := range field.Names {
			if n.IsExported() {
				exported = true
			}
		}
		if !exported {
			continue
		}
		envTag, ok := tag.Lookup("env")
		if !ok {
			if err := l.walkType(p, file, field.Type, prefix, out, depth+1); err != nil && !errors.Is(err, errNotStruct) {
				return err
			}
			continue
		}
		name, opts, _ := strings.Cut(envTag, ",")
		if name == "" {
			return fmt.Errorf("%s: empty env tag", l.fset.Position(field.Pos()))
		}
		v := EnvVar{Name: prefix + "_" + name, Where: l.fset.Position(field.Pos()).String()}
		switch opts {
		case "":
		case "noprefix":
			v.Name, v.NoPrefix = name, true
		default:
			return fmt.Errorf("%s: unknown env option %q", v.Where, opts)
		}
		v.Default, v.HasDefault = tag.Lookup("default")
		v.Required = tag.Get("required") == "true" && !v.HasDefault
		v.Secret = tag.Get("secret") == "true"
		*out = append(*out, v)
	}
	return nil
}

func typeName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.StarExpr:
		return typeName(t.X)
	}
	return ""
}
