// Package validate checks Thumela's deployment offline: it renders every Kustomize overlay
// under deploy/kubernetes/overlays with the kustomize Go API, decodes every object strictly
// into the typed Kubernetes API structs (an unknown field fails), and checks the result against
// the source tree: the configuration every binary reads (its config structs' env tags, read
// with go/ast), the images built by deploy/docker, and the architecture's call graph.
//
// Run it with `go test ./...` in this folder (make test does).
package validate
