package validate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Instruction is one Dockerfile instruction, continuation lines joined.
type Instruction struct {
	Cmd   string            // upper-cased: FROM, COPY, RUN, …
	Flags map[string]string // leading --name=value flags (--from, --mount…; repeated ones joined by ";")
	Args  string            // the rest
	Line  int
}

// Stage is one FROM … and what follows it.
type Stage struct {
	Base   string
	Name   string
	Instrs []Instruction
}

// Dockerfile is a parsed Dockerfile.
type Dockerfile struct {
	Path   string
	Stages []*Stage
}

// ParseDockerfile reads the instructions of a Dockerfile: comments and blank lines dropped,
// lines ending in a backslash joined. It understands enough of the syntax for the checks;
// heredocs and parser directives other than syntax are refused.
func ParseDockerfile(file string) (*Dockerfile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close() //nolint:errcheck // the file is only read; its Close error says nothing
	d := &Dockerfile{Path: file}
	sc := bufio.NewScanner(f)
	var (
		cur     strings.Builder
		start   int
		lineNum int
	)
	flush := func() error {
		text := strings.TrimSpace(cur.String())
		cur.Reset()
		if text == "" {
			return nil
		}
		in, err := parseInstruction(text, start)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", file, start, err)
		}
		if in.Cmd == "FROM" {
			fields := strings.Fields(in.Args)
			st := &Stage{Base: fields[0]}
			if len(fields) == 3 && strings.EqualFold(fields[1], "AS") {
				st.Name = fields[2]
			} else if len(fields) != 1 {
				return fmt.Errorf("%s:%d: cannot read FROM %s", file, start, in.Args)
			}
			d.Stages = append(d.Stages, st)
			return nil
		}
		if len(d.Stages) == 0 {
			if in.Cmd == "ARG" {
				return nil // global build arguments
			}
			return fmt.Errorf("%s:%d: %s before the first FROM", file, start, in.Cmd)
		}
		st := d.Stages[len(d.Stages)-1]
		st.Instrs = append(st.Instrs, in)
		return nil
	}
	for sc.Scan() {
		lineNum++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") {
			continue // a comment (also inside a continued instruction)
		}
		if cur.Len() == 0 {
			if trimmed == "" {
				continue
			}
			start = lineNum
		}
		if strings.Contains(line, "<<") && strings.HasPrefix(strings.ToUpper(trimmed), "RUN") {
			return nil, fmt.Errorf("%s:%d: heredocs are not supported by the validator", file, lineNum)
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\"))
			cur.WriteString(" ")
			continue
		}
		cur.WriteString(trimmed)
		if err := flush(); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if len(d.Stages) == 0 {
		return nil, fmt.Errorf("%s: no FROM", file)
	}
	return d, nil
}

func parseInstruction(text string, line int) (Instruction, error) {
	cmd, rest, _ := strings.Cut(text, " ")
	in := Instruction{Cmd: strings.ToUpper(cmd), Flags: map[string]string{}, Line: line}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		name, value, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		if old, ok := in.Flags[name]; ok {
			value = old + ";" + value
		}
		in.Flags[name] = value
		rest = strings.TrimSpace(after)
	}
	in.Args = rest
	return in, nil
}

// Stage returns the stage named name.
func (d *Dockerfile) Stage(name string) *Stage {
	for _, s := range d.Stages {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Final is the last stage: the image.
func (d *Dockerfile) Final() *Stage { return d.Stages[len(d.Stages)-1] }

// All returns the stage's instructions named cmd.
func (s *Stage) All(cmd string) []Instruction {
	var out []Instruction
	for _, in := range s.Instrs {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// Env returns the stage's ENV settings (KEY=VALUE forms only).
func (s *Stage) Env() (map[string]string, error) {
	env := map[string]string{}
	for _, in := range s.All("ENV") {
		for _, kv := range strings.Fields(in.Args) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return nil, fmt.Errorf("line %d: ENV must use KEY=VALUE", in.Line)
			}
			env[k] = strings.Trim(v, `"`)
		}
	}
	return env, nil
}

// ExecForm decodes an instruction's JSON-array arguments (ENTRYPOINT, CMD).
func ExecForm(in Instruction) ([]string, error) {
	var out []string
	if err := json.Unmarshal([]byte(in.Args), &out); err != nil {
		return nil, fmt.Errorf("line %d: %s is not in exec form (a JSON array): %w", in.Line, in.Cmd, err)
	}
	return out, nil
}

// Copy is a COPY's sources and destination.
type Copy struct {
	From string
	Srcs []string
	Dest string
	Line int
}

// Copies lists the stage's COPY instructions.
func (s *Stage) Copies() []Copy {
	var out []Copy
	for _, in := range s.All("COPY") {
		f := strings.Fields(in.Args)
		out = append(out, Copy{From: in.Flags["from"], Srcs: f[:len(f)-1], Dest: f[len(f)-1], Line: in.Line})
	}
	return out
}

// GoBuild is the go build in a RUN instruction.
type GoBuild struct {
	Line    string // the command as written, from CGO_ENABLED=0
	Output  string
	Package string
}

var goBuildRE = regexp.MustCompile(`CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main\.version=\$\{VERSION\}" -o (\S+) (\S+)$`)

// FindGoBuild returns the stage's go build, which must be written exactly as
// `CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o OUT PKG`.
// found is false when no RUN of the stage runs go build.
func (s *Stage) FindGoBuild() (gb GoBuild, found bool, err error) {
	for _, in := range s.All("RUN") {
		if !strings.Contains(in.Args, "go build") {
			continue
		}
		m := goBuildRE.FindStringSubmatch(strings.Join(strings.Fields(in.Args), " "))
		if m == nil {
			return GoBuild{}, true, fmt.Errorf("line %d: the go build must read `CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w -X main.version=${VERSION}\" -o OUT ./PKG`, got %q", in.Line, in.Args)
		}
		return GoBuild{Line: m[0], Output: m[1], Package: m[2]}, true, nil
	}
	return GoBuild{}, false, nil
}

// IgnoreRules is a .dockerignore file.
type IgnoreRules struct {
	patterns []ignorePattern
}

type ignorePattern struct {
	negate bool
	parts  []string
}

// ReadIgnore reads a .dockerignore file (comments, blank lines, ! exceptions, ** globs).
func ReadIgnore(file string) (*IgnoreRules, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	r := &IgnoreRules{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := ignorePattern{}
		if strings.HasPrefix(line, "!") {
			p.negate, line = true, strings.TrimSpace(line[1:])
		}
		line = path.Clean(strings.TrimPrefix(line, "/"))
		p.parts = strings.Split(line, "/")
		r.patterns = append(r.patterns, p)
	}
	return r, nil
}

// Excluded reports whether the context path rel (slash-separated) is left out of the build
// context: the last pattern matching it, or one of its parent folders, decides.
func (r *IgnoreRules) Excluded(rel string) bool {
	parts := strings.Split(rel, "/")
	excluded := false
	for _, p := range r.patterns {
		for n := 1; n <= len(parts); n++ {
			if globParts(p.parts, parts[:n]) {
				excluded = !p.negate
				break
			}
		}
	}
	return excluded
}

func globParts(pat, name []string) bool {
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if globParts(pat[1:], name[i:]) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, err := path.Match(pat[0], name[0])
	return err == nil && ok && globParts(pat[1:], name[1:])
}

// ContextFiles lists the files under the context path src (a file or a folder), as the build
// would see them through the ignore rules; an error when src is missing or wholly ignored.
func ContextFiles(root string, ignore *IgnoreRules, src string) ([]string, error) {
	src = path.Clean(strings.TrimPrefix(src, "./"))
	if strings.ContainsAny(src, "*?[") {
		return nil, fmt.Errorf("%s: wildcards are not supported by the validator", src)
	}
	info, err := os.Stat(filepath.Join(root, filepath.FromSlash(src)))
	if err != nil {
		return nil, fmt.Errorf("COPY source %s is not in the build context: %w", src, err)
	}
	var out []string
	if !info.IsDir() {
		if ignore.Excluded(src) {
			return nil, fmt.Errorf("COPY source %s is excluded by the .dockerignore", src)
		}
		return []string{src}, nil
	}
	err = filepath.WalkDir(filepath.Join(root, filepath.FromSlash(src)), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if ignore.Excluded(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("COPY source %s has no files left after the .dockerignore", src)
	}
	sort.Strings(out)
	return out, nil
}
