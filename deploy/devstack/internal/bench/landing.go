package bench

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// landingJS runs 6.: the landing page's first-load JavaScript in the built web client, gzipped.
func (r *runner) landingJS() {
	files, total, err := LandingJS(filepath.Join(r.cfg.Root, "web", "dist"))
	if err != nil {
		r.fail(landingJSName, landingJSTarget, err)
		return
	}
	r.raw["landing_js"] = files
	r.add(landingJSFigure(files, total))
}

// JSFile is one JavaScript file of the landing page's first load.
type JSFile struct {
	Path      string `json:"path"`
	Bytes     int    `json:"bytes"`
	GzipBytes int    `json:"gzip_bytes"`
	How       string `json:"how"`
}

var (
	scriptTag  = regexp.MustCompile(`<script\b[^>]*\bsrc="([^"]+)"[^>]*>`)
	preloadTag = regexp.MustCompile(`<link\b[^>]*\brel="modulepreload"[^>]*>`)
	hrefAttr   = regexp.MustCompile(`\bhref="([^"]+)"`)
	moduleAttr = regexp.MustCompile(`\btype="module"`)
)

// LandingJS lists the JavaScript the landing page downloads before it runs: every script of
// dist/index.html (the module entry and any classic script) and every modulepreload link (the
// entry's static imports), each gzipped at the default level as a server would send it. Chunks
// loaded later (lazy routes) are not part of the first load.
func LandingJS(dist string) ([]JSFile, int, error) {
	html, err := os.ReadFile(filepath.Join(dist, "index.html"))
	if err != nil {
		return nil, 0, fmt.Errorf("read the built web client (run make build-web): %w", err)
	}
	type ref struct{ path, how string }
	var refs []ref
	for _, m := range scriptTag.FindAllSubmatch(html, -1) {
		how := "script"
		if moduleAttr.Match(m[0]) {
			how = "module script"
		}
		refs = append(refs, ref{string(m[1]), how})
	}
	for _, tag := range preloadTag.FindAll(html, -1) {
		if m := hrefAttr.FindSubmatch(tag); m != nil {
			refs = append(refs, ref{string(m[1]), "modulepreload"})
		}
	}
	var files []JSFile
	total := 0
	seen := map[string]bool{}
	for _, r := range refs {
		p := strings.TrimPrefix(r.path, "/")
		if seen[p] || strings.Contains(p, "://") || !strings.HasSuffix(p, ".js") {
			continue
		}
		seen[p] = true
		b, err := os.ReadFile(filepath.Join(dist, filepath.FromSlash(p)))
		if err != nil {
			return nil, 0, err
		}
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		_ = zw.Close()
		files = append(files, JSFile{Path: p, Bytes: len(b), GzipBytes: buf.Len(), How: r.how})
		total += buf.Len()
	}
	if len(files) == 0 {
		return nil, 0, fmt.Errorf("no script in %s", filepath.Join(dist, "index.html"))
	}
	return files, total, nil
}
