package validate

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const (
	goBase    = "golang:1.26"
	nodeBase  = "node:20"
	finalBase = "gcr.io/distroless/static-debian12:nonroot"
	imageUser = "65532"
)

// TestDockerfiles checks each binary's Dockerfile by construction, since no docker engine is
// at hand: its stages, what it copies (against go.work and the source tree, through its
// .dockerignore), the go build line, and the final image (distroless, non-root, no shell).
func TestDockerfiles(t *testing.T) {
	f := load(t)
	entries, err := os.ReadDir(filepath.Join(f.root, "deploy", "docker"))
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".Dockerfile"); ok {
			found = append(found, n)
		}
	}
	want := append([]string(nil), binaries...)
	sort.Strings(want)
	sort.Strings(found)
	if strings.Join(found, ",") != strings.Join(want, ",") {
		t.Errorf("deploy/docker has Dockerfiles for %v, want exactly %v", found, want)
	}
	for _, b := range binaries {
		t.Run(b, func(t *testing.T) { checkDockerfile(t, f, f.images[b]) })
	}
}

func checkDockerfile(t *testing.T, f *fixture, img *image) {
	df := img.file
	if !strings.HasPrefix(img.build.Base, goBase) {
		t.Errorf("the build stage starts FROM %s, want %s", img.build.Base, goBase)
	}
	if img.build.Name == "" {
		t.Errorf("the build stage has no name (FROM … AS build)")
	}
	if img.build == df.Final() {
		t.Fatalf("the go build runs in the final stage: a build stage and a distroless final stage are wanted")
	}

	// ARG VERSION before the build, in the build stage.
	hasVersion := false
	for _, in := range img.build.Instrs {
		if in.Cmd == "ARG" && strings.HasPrefix(in.Args, "VERSION") {
			hasVersion = true
		}
		if in.Cmd == "RUN" && strings.Contains(in.Args, "go build") && !hasVersion {
			t.Errorf("line %d: go build uses ${VERSION} before ARG VERSION in its stage", in.Line)
		}
	}
	if got := path.Base(img.goBuild.Output); got != img.binary {
		t.Errorf("go build -o %s: want the binary named %s", img.goBuild.Output, img.binary)
	}

	// What the build stage copies from the context.
	goMods := map[string]bool{}
	sources := map[string]bool{}
	copiedWork := map[string]bool{}
	for _, cp := range img.build.Copies() {
		if cp.From != "" {
			continue
		}
		for _, src := range cp.Srcs {
			if _, err := ContextFiles(f.root, img.ignore, src); err != nil {
				t.Errorf("line %d: %v", cp.Line, err)
			}
			src = path.Clean(src)
			switch {
			case src == "go.work" || src == "go.work.sum":
				copiedWork[src] = true
			case path.Base(src) == "go.mod":
				goMods[path.Dir(src)] = true
			case path.Base(src) == "go.sum":
			default:
				sources[src] = true
			}
		}
	}
	for _, w := range []string{"go.work", "go.work.sum"} {
		if !copiedWork[w] {
			t.Errorf("%s is not copied: the build uses the workspace", w)
		}
	}
	for _, m := range f.ws.Modules {
		if !goMods[m.Dir] {
			t.Errorf("%s/go.mod is not copied: go.work uses it and Go refuses a workspace with a module missing", m.Dir)
		}
		if _, err := os.Stat(filepath.Join(f.root, m.Dir, "go.sum")); err == nil {
			found := false
			for _, cp := range img.build.Copies() {
				for _, s := range cp.Srcs {
					if path.Clean(s) == m.Dir+"/go.sum" {
						found = true
					}
				}
			}
			if !found {
				t.Errorf("%s/go.sum is not copied", m.Dir)
			}
		}
		delete(goMods, m.Dir)
	}
	for d := range goMods {
		t.Errorf("%s/go.mod is copied but %s is not a module of go.work", d, d)
	}
	need := f.ws.Closure(img.module)
	for _, d := range need {
		if !sources[d] {
			t.Errorf("the sources of %s are not copied; %s needs them", d, img.module.Dir)
		}
		delete(sources, d)
	}
	for s := range sources {
		t.Errorf("%s is copied but %s does not need it (modules needed: %v)", s, img.binary, need)
	}

	// The final stage: distroless, non-root, no shell to RUN anything.
	final := df.Final()
	if final.Base != finalBase {
		t.Errorf("the final stage is FROM %s, want %s", final.Base, finalBase)
	}
	if runs := final.All("RUN"); len(runs) > 0 {
		t.Errorf("line %d: RUN in the final stage (distroless has no shell)", runs[0].Line)
	}
	users := final.All("USER")
	if len(users) == 0 {
		t.Errorf("the final stage sets no USER; want %s", imageUser)
	} else if u := users[len(users)-1].Args; u != imageUser && u != imageUser+":"+imageUser {
		t.Errorf("USER %s, want %s (distroless nonroot)", u, imageUser)
	}
	entry := final.All("ENTRYPOINT")
	if len(entry) != 1 {
		t.Fatalf("want one ENTRYPOINT in the final stage, got %d", len(entry))
	}
	argv, err := ExecForm(entry[0])
	if err != nil {
		t.Fatal(err)
	}
	binDest := ""
	for _, cp := range final.Copies() {
		if cp.From == img.build.Name && len(cp.Srcs) == 1 && cp.Srcs[0] == img.goBuild.Output {
			binDest = cp.Dest
		}
	}
	if binDest == "" {
		t.Errorf("the final stage does not COPY --from=%s %s", img.build.Name, img.goBuild.Output)
	} else if len(argv) == 0 || argv[0] != binDest {
		t.Errorf("ENTRYPOINT %v does not run the copied binary %s", argv, binDest)
	}
	// One EXPOSE: the serving port, then the binary's other listeners (not metrics: off by
	// default, and never public).
	expose := final.All("EXPOSE")
	ls := listeners[img.binary]
	if len(expose) != 1 || len(strings.Fields(expose[0].Args)) != 1+len(ls) {
		t.Errorf("want one EXPOSE in the final stage with %d port(s): the serving port, then %v", 1+len(ls), ls)
	}
	env, err := final.Env()
	if err != nil {
		t.Fatal(err)
	}
	cfg := f.configs[img.binary]
	for k := range env {
		if _, ok := cfg.Var(k); !ok {
			t.Errorf("ENV %s: %s does not read it", k, img.binary)
		}
	}
	// Listen address and exposed port agree.
	if len(expose) == 1 {
		port := strings.TrimSuffix(strings.Fields(expose[0].Args)[0], "/tcp")
		for k, v := range env {
			if strings.HasSuffix(k, "_GRPC_ADDR") || strings.HasSuffix(k, "_HTTP_ADDR") {
				if _, p, ok := strings.Cut(v, ":"); !ok || p != port {
					t.Errorf("ENV %s=%s does not listen on the exposed port %s", k, v, port)
				}
			}
		}
		ports := strings.Fields(expose[0].Args)
		for i, l := range ls {
			if i+1 >= len(ports) {
				break
			}
			want := strings.TrimSuffix(ports[i+1], "/tcp")
			// The code's default listens on loopback: the image must set a reachable one.
			if v, ok := env[l.Var]; !ok {
				t.Errorf("the image sets no %s: its listener would be on the code's default", l.Var)
			} else if _, p, ok := strings.Cut(v, ":"); !ok || p != want {
				t.Errorf("ENV %s=%s does not listen on the exposed port %s", l.Var, v, want)
			}
		}
	}
	// A directory the binary serves (BFF_WEB_DIR) must be what the final stage copies in.
	for k, v := range env {
		if !strings.HasSuffix(k, "_WEB_DIR") {
			continue
		}
		ok := false
		for _, cp := range final.Copies() {
			if cp.From != "" && cp.From != img.build.Name && path.Clean(cp.Dest) == path.Clean(v) {
				ok = true
				checkWebStage(t, f, img, cp)
			}
		}
		if !ok {
			t.Errorf("ENV %s=%s: the final stage copies nothing there from the web stage", k, v)
		}
	}
	if img.binary == "bff" && env["BFF_WEB_DIR"] == "" {
		t.Errorf("the BFF image must set BFF_WEB_DIR to the built web client")
	}

	// The ignore list keeps the heavy and private folders out of the context.
	for _, p := range []string{".git/config", "web/node_modules/x/package.json", ".data/dev-secrets.json"} {
		if !img.ignore.Excluded(p) {
			t.Errorf("%s.Dockerfile.dockerignore does not exclude %s", img.binary, p)
		}
	}
}

var viteOutDirRE = regexp.MustCompile(`outDir:\s*["']([^"']+)["']`)

// checkWebStage checks the stage that builds the web client: node 20, npm ci then npm run
// build, and the copied folder is the one Vite writes.
func checkWebStage(t *testing.T, f *fixture, img *image, cp Copy) {
	st := img.file.Stage(cp.From)
	if st == nil {
		t.Errorf("line %d: COPY --from=%s: no such stage", cp.Line, cp.From)
		return
	}
	if !strings.HasPrefix(st.Base, nodeBase) {
		t.Errorf("the web stage is FROM %s, want %s", st.Base, nodeBase)
	}
	var runs []string
	for _, in := range st.All("RUN") {
		runs = append(runs, in.Args)
	}
	all := strings.Join(runs, "\n")
	if !strings.Contains(all, "npm ci") || !strings.Contains(all, "npm run build") {
		t.Errorf("the web stage must run npm ci and npm run build, runs %q", runs)
	}
	workdir := ""
	for _, in := range st.All("WORKDIR") {
		workdir = in.Args
	}
	var webDir string // the context folder the stage's WORKDIR mirrors
	for _, c := range st.Copies() {
		for _, src := range c.Srcs {
			if _, err := ContextFiles(f.root, img.ignore, src); err != nil {
				t.Errorf("line %d: %v", c.Line, err)
			}
			if strings.HasSuffix(src, "/") && (c.Dest == "./" || c.Dest == ".") {
				webDir = path.Clean(src)
			}
		}
	}
	if webDir == "" {
		t.Errorf("the web stage does not copy the client's folder into its WORKDIR")
		return
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	data, err := os.ReadFile(filepath.Join(f.root, webDir, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err != nil {
		t.Errorf("%s/package.json: %v", webDir, err)
	} else if pkg.Scripts["build"] == "" {
		t.Errorf("%s/package.json has no build script", webDir)
	}
	if _, err := os.Stat(filepath.Join(f.root, webDir, "package-lock.json")); err != nil {
		t.Errorf("npm ci needs %s/package-lock.json: %v", webDir, err)
	}
	outDir := "dist"
	if vite, err := os.ReadFile(filepath.Join(f.root, webDir, "vite.config.ts")); err == nil {
		if m := viteOutDirRE.FindSubmatch(vite); m != nil {
			outDir = string(m[1])
		}
	}
	if want := path.Join(workdir, outDir); path.Clean(cp.Srcs[0]) != want {
		t.Errorf("line %d: copies %s from the web stage, but Vite writes %s", cp.Line, cp.Srcs[0], want)
	}
}

// TestDockerBuild replays each image's build stage without docker: it lays out exactly what
// the COPY instructions put in the image (through the .dockerignore) in a temporary folder
// and loads the binary's packages there as the Dockerfile's go build would, offline
// (GOPROXY=off, the module cache only): a missing module, file or go.sum entry fails here as
// it would in `docker build`. With VALIDATE_DOCKER_BUILD=1 it also compiles and links each
// binary with the Dockerfile's flags.
func TestDockerBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every binary")
	}
	f := load(t)
	for _, b := range binaries {
		img := f.images[b]
		t.Run(b, func(t *testing.T) {
			t.Parallel()
			tmp := t.TempDir()
			workdir := "/"
			for _, in := range img.build.Instrs {
				if in.Cmd == "WORKDIR" {
					workdir = path.Join(workdir, in.Args)
				}
				if in.Cmd != "COPY" || in.Flags["from"] != "" {
					continue
				}
				fields := strings.Fields(in.Args)
				srcs, dest := fields[:len(fields)-1], fields[len(fields)-1]
				destIsDir := strings.HasSuffix(dest, "/") || dest == "." || len(srcs) > 1
				if !path.IsAbs(dest) {
					dest = path.Join(workdir, dest)
				}
				for _, src := range srcs {
					files, err := ContextFiles(f.root, img.ignore, src)
					if err != nil {
						t.Fatal(err)
					}
					src = path.Clean(src)
					for _, file := range files {
						var to string
						switch {
						case file != src: // from a folder: keep the path below it
							to = path.Join(dest, strings.TrimPrefix(file, src+"/"))
						case destIsDir:
							to = path.Join(dest, path.Base(file))
						default:
							to = dest
						}
						copyFile(t, filepath.Join(f.root, file), filepath.Join(tmp, filepath.FromSlash(to)))
					}
				}
			}
			env, err := img.build.Env()
			if err != nil {
				t.Fatal(err)
			}
			goEnv := append(os.Environ(), "CGO_ENABLED=0", "GOPROXY=off", "GOWORK=", "GOFLAGS=")
			for k, v := range env {
				goEnv = append(goEnv, k+"="+v)
			}
			dir := filepath.Join(tmp, filepath.FromSlash(workdir))
			// Loading the package and its dependencies checks what a build needs of the
			// layout: every module of go.work, every go.sum entry, every imported package.
			list := exec.Command("go", "list", "-deps", img.goBuild.Package)
			list.Dir, list.Env = dir, goEnv
			if msg, err := list.CombinedOutput(); err != nil {
				t.Fatalf("go list -deps %s in the image's layout failed: %v\n%s", img.goBuild.Package, err, msg)
			}
			if os.Getenv(fullBuildEnv) == "" {
				return
			}
			out := filepath.Join(tmp, "out", b)
			cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w -X main.version=validate-test", "-o", out, img.goBuild.Package)
			cmd.Dir, cmd.Env = dir, goEnv
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("go build in the image's layout failed: %v\n%s", err, msg)
			}
			info, err := exec.Command("go", "version", "-m", out).CombinedOutput()
			if err != nil {
				t.Fatalf("go version -m: %v\n%s", err, info)
			}
			for _, want := range []string{"CGO_ENABLED=0", "-trimpath=true"} {
				if !strings.Contains(string(info), want) {
					t.Errorf("the binary's build info lacks %s:\n%s", want, info)
				}
			}
			bin, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(bin, []byte("validate-test")) {
				t.Errorf("-X main.version did not reach the binary")
			}
		})
	}
}

// fullBuildEnv, when set, makes TestDockerBuild also compile and link each binary as the image
// does (about 20 s a binary with a warm cache); by default it stops after loading them.
const fullBuildEnv = "VALIDATE_DOCKER_BUILD"

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// exposedPort is the port the image's final stage exposes.
func exposedPort(img *image) int32 {
	ex := img.file.Final().All("EXPOSE")
	if len(ex) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.Fields(ex[0].Args)[0], "/tcp"))
	return int32(n)
}
