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
// (repository-relative): the struct its variables are loaded into, and their prefix. Either in
// the main package itself: the type of its `var cfg T`, with the prefix from
// `service.Spec{Name: "…"}` (the service's name, upper-cased) or `config.Load("PREFIX", …)`; or,
// for a binary whose main hands over to a package of its own module (cashout's main calls
// gateway.Main, which does not use service.Main), in the first package of that module the main
// package imports, directly or not (breadth-first), that calls `config.Load(prefix, &x)` or
// `config.LoadWith(lookup, prefix, &x)` on a `var x T`; prefix is then a string constant or
// strings.ToUpper of one.
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
	pkg := mainPkg
	if cfgType == nil || prefix == "" {
		found, err := l.findLoadedConfig(mainPkg)
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", binary, err)
		}
		if found == nil {
			if cfgType == nil {
				return Config{}, fmt.Errorf("%s: no `var cfg T` in the main package %s, nor a config.Load or config.LoadWith of its module's packages", binary, mainDir)
			}
			return Config{}, fmt.Errorf("%s: no service.Spec{Name: …} or config.Load(\"PREFIX\", …) in %s", binary, mainDir)
		}
		pkg, cfgFile, cfgType, prefix = found.pkg, found.file, found.typ, found.prefix
	}
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

// loadedConfig is a configuration struct found through its config.Load or config.LoadWith call.
type loadedConfig struct {
	pkg    *goPackage
	file   *ast.File // where the variable's type expression is written
	typ    ast.Expr
	prefix string
}

// findLoadedConfig searches the workspace packages of main's module that main imports, directly
// or not, breadth-first, for the config.Load or config.LoadWith call that fills the binary's
// configuration. It returns nil when there is none, and an error when one package has two or
// a call it cannot read (a prefix that is not a constant).
func (l *sourceLoader) findLoadedConfig(main *goPackage) (*loadedConfig, error) {
	mod, ok := l.ws.ModuleOf(main.dir)
	if !ok {
		return nil, fmt.Errorf("%s is in no module of go.work", main.dir)
	}
	seen := map[string]bool{main.dir: true}
	queue := []*goPackage{main}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != main {
			found, err := l.loadCall(p)
			if err != nil || found != nil {
				return found, err
			}
		}
		for _, f := range p.files {
			for _, imp := range f.Imports {
				ip, _ := strconv.Unquote(imp.Path.Value)
				dir := l.ws.dirOfImport(ip)
				if dir == "" || seen[dir] {
					continue
				}
				if m, ok := l.ws.ModuleOf(dir); !ok || m.Dir != mod.Dir {
					continue // the platform's or another module's packages load no binary's config
				}
				seen[dir] = true
				q, err := l.load(dir)
				if err != nil {
					return nil, err
				}
				queue = append(queue, q)
			}
		}
	}
	return nil, nil
}

// loadCall finds, in package p, the call config.Load(prefix, &x) or
// config.LoadWith(lookup, prefix, &x) and the declaration `var x T` in the same function.
func (l *sourceLoader) loadCall(p *goPackage) (*loadedConfig, error) {
	var found []*loadedConfig
	var errs []error
	for _, f := range p.files {
		configName := ""
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			if l.ws.dirOfImport(ip) == "services/platform/config" {
				configName = "config"
				if imp.Name != nil {
					configName = imp.Name.Name
				}
			}
		}
		if configName == "" {
			continue
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != configName {
					return true
				}
				var prefixArg, dst ast.Expr
				switch {
				case sel.Sel.Name == "Load" && len(call.Args) == 2:
					prefixArg, dst = call.Args[0], call.Args[1]
				case sel.Sel.Name == "LoadWith" && len(call.Args) == 3:
					prefixArg, dst = call.Args[1], call.Args[2]
				default:
					return true
				}
				pos := l.fset.Position(call.Pos())
				prefix, ok := l.constString(p, f, prefixArg)
				if !ok {
					errs = append(errs, fmt.Errorf("%s: the prefix of %s.%s is not a string constant (or strings.ToUpper of one)", pos, configName, sel.Sel.Name))
					return true
				}
				u, ok := dst.(*ast.UnaryExpr)
				if !ok || u.Op != token.AND {
					errs = append(errs, fmt.Errorf("%s: %s.%s loads into something other than &variable", pos, configName, sel.Sel.Name))
					return true
				}
				id, ok := u.X.(*ast.Ident)
				if !ok {
					errs = append(errs, fmt.Errorf("%s: %s.%s loads into something other than &variable", pos, configName, sel.Sel.Name))
					return true
				}
				typ := varType(fn.Body, id.Name)
				if typ == nil {
					errs = append(errs, fmt.Errorf("%s: no `var %s T` in the function that loads it", pos, id.Name))
					return true
				}
				found = append(found, &loadedConfig{pkg: p, file: f, typ: typ, prefix: prefix})
				return true
			})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%s: %d configuration loads; want one", p.dir, len(found))
}

// varType is the type of `var name T` declared in body.
func varType(body *ast.BlockStmt, name string) ast.Expr {
	var typ ast.Expr
	ast.Inspect(body, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok && vs.Type != nil && typ == nil {
			for _, id := range vs.Names {
				if id.Name == name {
					typ = vs.Type
				}
			}
		}
		return typ == nil
	})
	return typ
}

// constString evaluates e, used in file of package p, as a string: a literal, a constant of the
// package declared with a literal, or strings.ToUpper of either.
func (l *sourceLoader) constString(p *goPackage, file *ast.File, e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.Ident:
		for _, f := range p.files {
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.CONST {
					continue
				}
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, id := range vs.Names {
						if id.Name == e.Name && i < len(vs.Values) {
							return l.constString(p, f, vs.Values[i])
						}
					}
				}
			}
		}
	case *ast.CallExpr:
		sel, ok := e.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "ToUpper" || len(e.Args) != 1 {
			return "", false
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return "", false
		}
		if dir, err := l.importDir(file, x.Name); err != nil || dir != "" || !importsPath(file, x.Name, "strings") {
			return "", false
		}
		s, ok := l.constString(p, file, e.Args[0])
		return strings.ToUpper(s), ok
	}
	return "", false
}

// importsPath reports whether file imports importPath under name.
func importsPath(file *ast.File, name, importPath string) bool {
	for _, imp := range file.Imports {
		ip, _ := strconv.Unquote(imp.Path.Value)
		if ip != importPath {
			continue
		}
		if (imp.Name == nil && path.Base(ip) == name) || (imp.Name != nil && imp.Name.Name == name) {
			return true
		}
	}
	return false
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
