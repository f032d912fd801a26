package validate

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// The eight images, one per binary (deploy/docker/<binary>.Dockerfile).
var binaries = []string{"identity", "profiles", "paymentmethods", "fees", "transfers", "notifications", "cashout", "bff"}

// callGraph is the architecture's service-to-service calls (ARCHITECTURE.md): the BFF calls
// every service with an API (not cashout, which has none); transfers calls paymentmethods, fees
// and identity; every service calls identity for its public keys; cashout, the ATM networks'
// gateway, calls transfers (CollectVoucher, ReverseCollection) with the service token identity
// issues it. identity and transfers reach notifications through NATS (notification requests),
// never by gRPC. NetworkPolicies must allow exactly these between Thumela's pods.
var callGraph = map[string][]string{
	"bff":            {"identity", "profiles", "paymentmethods", "fees", "transfers", "notifications"},
	"transfers":      {"identity", "paymentmethods", "fees"},
	"cashout":        {"identity", "transfers"},
	"notifications":  {"identity"},
	"profiles":       {"identity"},
	"paymentmethods": {"identity"},
	"fees":           {"identity"},
	"identity":       nil,
}

// listener is a port a binary serves besides its gRPC or HTTP port and its metrics.
type listener struct {
	Var     string // the variable holding its listen address
	Port    string // the container port's name
	Service string // the Service in front of it
	// Path, when set, is where the prod overlay's Ingress publishes it on the BFF's public
	// origin (reachable from the ingress controller, and only from it).
	Path string
	// Link, when set, names the network outside the cluster that connects to the listener
	// directly, not through the ingress controller (plain TCP, not HTTP). A NetworkPolicy
	// admits it from ipBlock peers on that port only, and nothing else reaches the port; in
	// prod the listener's Service is a LoadBalancer that keeps the client's address
	// (externalTrafficPolicy: Local, or the ipBlock would never match) and admits the same
	// addresses only (loadBalancerSourceRanges within the ipBlocks).
	Link string
}

// listeners lists each binary's extra listeners, in container-port order after the serving
// port and the metrics port (and in the image's EXPOSE after the serving port).
var listeners = map[string][]listener{
	// BulkSMS's delivery reports: POST /webhooks/bulksms/<token>.
	"notifications": {{Var: "NOTIFICATIONS_WEBHOOK_ADDR", Port: "webhook", Service: "notifications-webhook", Path: "/webhooks/bulksms/"}},
	// ISO 8583 over TCP from the ATM networks' switches (docs/cashout.md).
	"cashout": {{Var: "CASHOUT_ISO_ADDR", Port: "iso8583", Service: "cashout-iso", Link: "the ATM switches' link"}},
}

// externalEgress is what a binary may reach outside the cluster: the TCP ports (to any public
// address), and the variables naming the endpoints it reaches there (host:port or a URL),
// whose ports must be among them. No other process reaches anything outside the cluster.
type externalEgress struct {
	Ports []int32
	Vars  []string
}

var external = map[string]externalEgress{
	// BulkSMS's API (https) and the SMTP relay (587 STARTTLS, 465 implicit TLS).
	"notifications": {Ports: []int32{443, 465, 587}, Vars: []string{"NOTIFICATIONS_BULKSMS_URL", "NOTIFICATIONS_SMTP_ADDR"}},
}

func calls(from, to string) bool {
	for _, c := range callGraph[from] {
		if c == to {
			return true
		}
	}
	return false
}

// image is what the validator knows of one binary's Dockerfile.
type image struct {
	binary  string
	file    *Dockerfile
	ignore  *IgnoreRules
	build   *Stage
	goBuild GoBuild
	mainDir string
	module  Module
}

type fixture struct {
	root     string
	ws       *Workspace
	images   map[string]*image
	configs  map[string]Config
	overlays map[string]*Rendered
	names    []string // overlay names, sorted
}

var (
	fixOnce sync.Once
	fix     *fixture
	fixErr  error
)

// load reads the source tree, the Dockerfiles and renders every overlay, once per test run.
func load(t *testing.T) *fixture {
	t.Helper()
	fixOnce.Do(func() { fix, fixErr = loadFixture() })
	if fixErr != nil {
		t.Fatal(fixErr)
	}
	return fix
}

func loadFixture() (*fixture, error) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(root, "go.work")); err != nil {
		return nil, fmt.Errorf("the repository's root (with go.work) is not at %s: %w", root, err)
	}
	f := &fixture{root: root, images: map[string]*image{}, configs: map[string]Config{}, overlays: map[string]*Rendered{}}
	if f.ws, err = LoadWorkspace(root); err != nil {
		return nil, err
	}
	for _, b := range binaries {
		img, err := f.loadImage(b)
		if err != nil {
			return nil, fmt.Errorf("deploy/docker/%s.Dockerfile: %w", b, err)
		}
		f.images[b] = img
		cfg, err := ReadConfig(f.ws, b, img.mainDir)
		if err != nil {
			return nil, err
		}
		f.configs[b] = cfg
	}
	if f.names, err = Overlays(root); err != nil {
		return nil, err
	}
	if len(f.names) == 0 {
		return nil, fmt.Errorf("no overlays under deploy/kubernetes/overlays")
	}
	for _, o := range f.names {
		r, err := Render(root, o)
		if err != nil {
			return nil, err
		}
		f.overlays[o] = r
	}
	return f, nil
}

func (f *fixture) loadImage(b string) (*image, error) {
	dir := filepath.Join(f.root, "deploy", "docker")
	df, err := ParseDockerfile(filepath.Join(dir, b+".Dockerfile"))
	if err != nil {
		return nil, err
	}
	ign, err := ReadIgnore(filepath.Join(dir, b+".Dockerfile.dockerignore"))
	if err != nil {
		return nil, fmt.Errorf("the ignore list BuildKit reads for it: %w", err)
	}
	img := &image{binary: b, file: df, ignore: ign}
	for _, st := range df.Stages {
		gb, found, err := st.FindGoBuild()
		if err != nil {
			return nil, err
		}
		if found {
			if img.build != nil {
				return nil, fmt.Errorf("two stages run go build")
			}
			img.build, img.goBuild = st, gb
		}
	}
	if img.build == nil {
		return nil, fmt.Errorf("no stage runs `go build`")
	}
	img.mainDir = path.Clean(strings.TrimPrefix(img.goBuild.Package, "./"))
	if path.Base(img.mainDir) != b {
		return nil, fmt.Errorf("builds %s, not the %s binary", img.goBuild.Package, b)
	}
	m, ok := f.ws.ModuleOf(img.mainDir)
	if !ok {
		return nil, fmt.Errorf("%s is in no module of go.work", img.mainDir)
	}
	img.module = m
	return img, nil
}

// pods of a Rendered overlay.

func namespaceOf(r *Rendered) string {
	if len(r.Namespaces) == 1 {
		return r.Namespaces[0].Name
	}
	return ""
}

func deploymentPod(d *appsv1.Deployment) Pod {
	var ports []corev1.ContainerPort
	for _, c := range d.Spec.Template.Spec.Containers {
		ports = append(ports, c.Ports...)
	}
	return PodIn(d.Name, d.Namespace, d.Spec.Template.Labels, ports)
}

func statefulSetPod(s *appsv1.StatefulSet) Pod {
	var ports []corev1.ContainerPort
	for _, c := range s.Spec.Template.Spec.Containers {
		ports = append(ports, c.Ports...)
	}
	return PodIn(s.Name, s.Namespace, s.Spec.Template.Labels, ports)
}

// containerPort resolves a Service targetPort or probe port (a number or a name).
func containerPort(ports []corev1.ContainerPort, name string, number int32) (corev1.ContainerPort, bool) {
	for _, p := range ports {
		if (name != "" && p.Name == name) || (name == "" && p.ContainerPort == number) {
			return p, true
		}
	}
	return corev1.ContainerPort{}, false
}
