package validate

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// forOverlays runs fn for every overlay as a subtest.
func forOverlays(t *testing.T, fn func(t *testing.T, f *fixture, r *Rendered)) {
	f := load(t)
	for _, o := range f.names {
		t.Run(o, func(t *testing.T) { fn(t, f, f.overlays[o]) })
	}
}

// TestOverlaysRender: every overlay renders, every object decodes strictly (done while
// loading), lives in the overlay's one Namespace, and no Secret is rendered.
func TestOverlaysRender(t *testing.T) {
	forOverlays(t, func(t *testing.T, _ *fixture, r *Rendered) {
		ns := namespaceOf(r)
		if ns == "" {
			t.Fatalf("want exactly one Namespace in the overlay, got %d", len(r.Namespaces))
		}
		if r.Namespaces[0].Labels["pod-security.kubernetes.io/enforce"] != "restricted" {
			t.Errorf("Namespace %s does not enforce the restricted Pod Security Standard", ns)
		}
		check := func(kind, name, got string) {
			if got != ns {
				t.Errorf("%s %s is in namespace %q, want %q", kind, name, got, ns)
			}
		}
		for n, o := range r.Deployments {
			check("Deployment", n, o.Namespace)
		}
		for n, o := range r.StatefulSets {
			check("StatefulSet", n, o.Namespace)
		}
		for n, o := range r.Services {
			check("Service", n, o.Namespace)
		}
		for n, o := range r.ConfigMaps {
			check("ConfigMap", n, o.Namespace)
		}
		for _, o := range r.NetworkPolicies {
			check("NetworkPolicy", o.Name, o.Namespace)
		}
		for _, o := range r.PDBs {
			check("PodDisruptionBudget", o.Name, o.Namespace)
		}
		for _, o := range r.HPAs {
			check("HorizontalPodAutoscaler", o.Name, o.Namespace)
		}
		for _, o := range r.Clusters {
			check("Cluster", o.Name, o.Namespace)
		}
		t.Logf("%d objects: %v", countObjects(r), r.Objects)
	})
}

func countObjects(r *Rendered) int {
	n := 0
	for _, c := range r.Objects {
		n += c
	}
	return n
}

// TestDeployments: one Deployment per binary running that binary's image, its ports behind
// its Service and probes, resources, the security context, and a grace period that fits the
// binary's own shutdown timeout.
func TestDeployments(t *testing.T) {
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		var names []string
		for n := range r.Deployments {
			names = append(names, n)
		}
		sort.Strings(names)
		want := append([]string(nil), binaries...)
		sort.Strings(want)
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Errorf("Deployments %v, want exactly %v", names, want)
		}
		tags := map[string]bool{}
		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			t.Run(b, func(t *testing.T) { checkDeployment(t, f, r, b, d, tags) })
		}
		if len(tags) > 1 {
			t.Errorf("the images carry different tags %v: one release deploys together", tags)
		}
	})
}

func checkDeployment(t *testing.T, f *fixture, r *Rendered, b string, d *appsv1.Deployment, tags map[string]bool) {
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(spec.Containers))
	}
	c := spec.Containers[0]
	if c.Name != b {
		t.Errorf("container %q, want %q", c.Name, b)
	}
	// The image: one of the built ones, this binary's, at a pinned tag.
	repo, tag := splitImage(c.Image)
	if repo != "thumela/"+b && !strings.HasSuffix(repo, "/thumela/"+b) {
		t.Errorf("image %s is not the %s image built by deploy/docker/%s.Dockerfile (…thumela/%s)", c.Image, b, b, b)
	}
	if tag == "" || tag == "latest" {
		t.Errorf("image %s: pin a tag (not latest)", c.Image)
	}
	tags[tag] = true

	// Labels and selector.
	if d.Spec.Template.Labels["app.kubernetes.io/name"] != b {
		t.Errorf("pod label app.kubernetes.io/name=%q, want %q", d.Spec.Template.Labels["app.kubernetes.io/name"], b)
	}
	if d.Spec.Selector == nil || !labels.SelectorFromSet(d.Spec.Selector.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("the selector does not select the pod template")
	}
	if d.Spec.Replicas != nil {
		t.Errorf("replicas is set (%d): the HorizontalPodAutoscaler owns the count, and an apply would reset it", *d.Spec.Replicas)
	}

	// Ports: the image's EXPOSE first, behind the Service, under the probes; then, for a
	// binary that serves metrics, the metrics port; then its other listeners.
	cfg := f.configs[b]
	_, servesMetrics := cfg.Var(cfg.Prefix + "_METRICS_ADDR")
	wantPorts := 1
	if servesMetrics {
		wantPorts = 2
	}
	extra := wantPorts
	wantPorts += len(listeners[b])
	if len(c.Ports) != wantPorts {
		t.Fatalf("want %d container ports (serving port, then metrics when the binary reads %s_METRICS_ADDR, then %v), got %v", wantPorts, cfg.Prefix, listeners[b], c.Ports)
	}
	port := c.Ports[0]
	if servesMetrics {
		checkMetricsPort(t, r, d, c, cfg.Prefix+"_METRICS_ADDR")
	}
	for i, l := range listeners[b] {
		checkListener(t, f, r, b, d, c, c.Ports[extra+i], l)
	}
	if p := exposedPort(f.images[b]); p != port.ContainerPort {
		t.Errorf("containerPort %d, but the image exposes %d", port.ContainerPort, p)
	}
	svc, ok := r.Services[b]
	if !ok {
		t.Errorf("no Service named %s", b)
	} else {
		if !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) || len(svc.Spec.Selector) == 0 {
			t.Errorf("Service %s does not select the pods", b)
		}
		if len(svc.Spec.Ports) != 1 {
			t.Errorf("Service %s: want one port", b)
		}
		for _, sp := range svc.Spec.Ports {
			if cp, ok := resolvePort(c.Ports, sp.TargetPort, sp.Port); !ok {
				t.Errorf("Service %s port %d: targetPort %s is not a container port", b, sp.Port, sp.TargetPort.String())
			} else if cp.ContainerPort != port.ContainerPort {
				t.Errorf("Service %s port %d targets container port %d, not the serving port %d", b, sp.Port, cp.ContainerPort, port.ContainerPort)
			}
		}
	}
	probes := map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe, "startup": c.StartupProbe}
	for kind, p := range probes {
		if p == nil {
			if kind != "startup" {
				t.Errorf("no %s probe", kind)
			}
			continue
		}
		switch b {
		case "bff":
			if p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
				t.Errorf("%s probe: want httpGet /healthz", kind)
				continue
			}
			if cp, ok := resolvePort(c.Ports, p.HTTPGet.Port, 0); !ok || cp.ContainerPort != port.ContainerPort {
				t.Errorf("%s probe port %s is not the container's port", kind, p.HTTPGet.Port.String())
			}
		default:
			if p.GRPC == nil {
				t.Errorf("%s probe: want a grpc probe (gRPC health)", kind)
				continue
			}
			if p.GRPC.Port != port.ContainerPort {
				t.Errorf("%s probe on port %d, the container listens on %d", kind, p.GRPC.Port, port.ContainerPort)
			}
			if p.GRPC.Service != nil && *p.GRPC.Service != "" {
				t.Errorf("%s probe asks for service %q; the overall status (\"\") is what the server sets", kind, *p.GRPC.Service)
			}
		}
	}

	// Resources.
	req, lim := c.Resources.Requests, c.Resources.Limits
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		rq, okr := req[name]
		lm, okl := lim[name]
		if !okr || !okl {
			t.Errorf("%s: want both a request and a limit", name)
			continue
		}
		if rq.Cmp(lm) > 0 {
			t.Errorf("%s request %s exceeds its limit %s", name, rq.String(), lm.String())
		}
	}
	if m := req[corev1.ResourceMemory]; m.Cmp(resource.MustParse("64Mi")) < 0 {
		t.Errorf("memory request %s < 64Mi (a service idles at up to 64 MiB)", m.String())
	}
	if m := lim[corev1.ResourceMemory]; m.Cmp(resource.MustParse("256Mi")) < 0 {
		t.Errorf("memory limit %s < 256Mi", m.String())
	}
	if cpu := req[corev1.ResourceCPU]; cpu.Cmp(resource.MustParse("50m")) < 0 {
		t.Errorf("cpu request %s < 50m", cpu.String())
	}

	// Security.
	psc := spec.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
		t.Errorf("pod securityContext.runAsNonRoot is not true")
	}
	if psc != nil && (psc.RunAsUser == nil || strconv.FormatInt(*psc.RunAsUser, 10) != imageUser) {
		t.Errorf("pod runAsUser should be the image's user %s", imageUser)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod seccompProfile is not RuntimeDefault")
	}
	checkContainerSecurity(t, c)
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("automountServiceAccountToken is not false: no Thumela process calls the Kubernetes API")
	}
	if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
		t.Errorf("enableServiceLinks is not false: service links add <SERVICE>_PORT… variables beside the configuration")
	}
	if sa := spec.ServiceAccountName; sa != "" {
		if _, ok := r.ServiceAccounts[sa]; !ok {
			t.Errorf("ServiceAccount %s is not in the render", sa)
		}
	}

	// Stopping: preStop sleep + the binary's SHUTDOWN_TIMEOUT + 5 s of telemetry flush fit in
	// the grace period.
	env, err := effectiveEnv(r, c)
	if err != nil {
		t.Fatal(err)
	}
	shutdown := 30 * time.Second
	if v, ok := cfg.Var(cfg.Prefix + "_SHUTDOWN_TIMEOUT"); ok {
		s := value(env, v.Name)
		if s == "" {
			s = v.Default
		}
		if shutdown, err = time.ParseDuration(s); err != nil {
			t.Errorf("%s=%q: %v", v.Name, s, err)
		}
	}
	var sleep time.Duration
	if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
		sleep = time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	}
	grace := 30 * time.Second
	if spec.TerminationGracePeriodSeconds != nil {
		grace = time.Duration(*spec.TerminationGracePeriodSeconds) * time.Second
	}
	if need := sleep + shutdown + 5*time.Second; grace < need {
		t.Errorf("terminationGracePeriodSeconds %s < preStop %s + shutdown timeout %s + 5s", grace, sleep, shutdown)
	}
}

// checkMetricsPort: the second container port is "metrics", where the binary's metrics
// address (name) listens on every interface, and the pod's prometheus.io annotations point
// Prometheus at it.
func checkMetricsPort(t *testing.T, r *Rendered, d *appsv1.Deployment, c corev1.Container, name string) {
	t.Helper()
	mp := c.Ports[1]
	if mp.Name != "metrics" || (mp.Protocol != "" && mp.Protocol != corev1.ProtocolTCP) {
		t.Errorf("second container port %v: want a TCP port named metrics", mp)
	}
	env, err := effectiveEnv(r, c)
	if err != nil {
		t.Fatal(err)
	}
	addr := value(env, name)
	host, p, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		t.Errorf("%s=%q: %v (metrics are off unless it is set)", name, addr, err)
	case host != "" && host != "0.0.0.0" && host != "::":
		t.Errorf("%s=%q listens on %s only: Prometheus cannot reach it", name, addr, host)
	case p != strconv.Itoa(int(mp.ContainerPort)):
		t.Errorf("%s=%q, but the metrics container port is %d", name, addr, mp.ContainerPort)
	}
	want := map[string]string{
		"prometheus.io/scrape": "true",
		"prometheus.io/port":   strconv.Itoa(int(mp.ContainerPort)),
		"prometheus.io/path":   "/metrics",
	}
	for k, v := range want {
		if got := d.Spec.Template.Annotations[k]; got != v {
			t.Errorf("pod annotation %s=%q, want %q", k, got, v)
		}
	}
}

// checkListener: a listener's container port has its name, the binary reads its address
// variable, which listens there on every interface, the image exposes it, and its own Service
// (not the binary's main one) selects the pods and targets it.
func checkListener(t *testing.T, f *fixture, r *Rendered, b string, d *appsv1.Deployment, c corev1.Container, cp corev1.ContainerPort, l listener) {
	t.Helper()
	if cp.Name != l.Port || (cp.Protocol != "" && cp.Protocol != corev1.ProtocolTCP) {
		t.Errorf("container port %v: want a TCP port named %s (%s)", cp, l.Port, l.Var)
	}
	if _, ok := f.configs[b].Var(l.Var); !ok {
		t.Errorf("%s does not read %s: the validator's listeners are stale", b, l.Var)
	}
	env, err := effectiveEnv(r, c)
	if err != nil {
		t.Fatal(err)
	}
	addr := value(env, l.Var)
	host, p, err := net.SplitHostPort(addr)
	switch {
	case err != nil:
		t.Errorf("%s=%q: %v", l.Var, addr, err)
	case host != "" && host != "0.0.0.0" && host != "::":
		t.Errorf("%s=%q listens on %s only: unreachable from its Service", l.Var, addr, host)
	case p != strconv.Itoa(int(cp.ContainerPort)):
		t.Errorf("%s=%q, but the %s container port is %d", l.Var, addr, l.Port, cp.ContainerPort)
	}
	svc, ok := r.Services[l.Service]
	if !ok {
		t.Errorf("no Service %s in front of %s's %s port", l.Service, b, l.Port)
		return
	}
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels)) {
		t.Errorf("Service %s does not select the %s pods", l.Service, b)
	}
	if len(svc.Spec.Ports) != 1 {
		t.Errorf("Service %s: want one port", l.Service)
	}
	for _, sp := range svc.Spec.Ports {
		if got, ok := resolvePort(c.Ports, sp.TargetPort, sp.Port); !ok || got.ContainerPort != cp.ContainerPort {
			t.Errorf("Service %s port %d does not target the %s container port %d", l.Service, sp.Port, l.Port, cp.ContainerPort)
		}
	}
}

func checkContainerSecurity(t *testing.T, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil {
		t.Errorf("container %s has no securityContext", c.Name)
		return
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("container %s: readOnlyRootFilesystem is not true", c.Name)
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("container %s: allowPrivilegeEscalation is not false", c.Name)
	}
	if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) > 0 {
		t.Errorf("container %s: capabilities must drop ALL and add none", c.Name)
	}
}

func splitImage(image string) (repo, tag string) {
	if i := strings.Index(image, "@"); i >= 0 {
		return image[:i], image[i+1:]
	}
	slash := strings.LastIndex(image, "/")
	if i := strings.LastIndex(image, ":"); i > slash {
		return image[:i], image[i+1:]
	}
	return image, ""
}

// resolvePort finds the container port a Service targetPort or probe port names; an unset
// targetPort means the Service's port number.
func resolvePort(ports []corev1.ContainerPort, p intstr.IntOrString, servicePort int32) (corev1.ContainerPort, bool) {
	switch {
	case p.Type == intstr.String:
		return containerPort(ports, p.StrVal, 0)
	case p.IntVal != 0:
		return containerPort(ports, "", p.IntVal)
	default:
		return containerPort(ports, "", servicePort)
	}
}

// TestConfiguration: every variable each binary reads (its config structs' env tags) is set
// in its Deployment in every overlay, directly, from a ConfigMap or from a Secret; required
// ones are never empty nor optional; secret ones come from Secrets; no variable with the
// binary's own prefix is set that it does not read (a typo); the listen address listens on
// the container's port on every interface.
func TestConfiguration(t *testing.T) {
	f := load(t)
	for _, b := range binaries {
		cfg := f.configs[b]
		var names []string
		for _, v := range cfg.Vars {
			names = append(names, v.Name)
		}
		t.Logf("%s reads %s", b, strings.Join(names, " "))
	}
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			t.Run(b, func(t *testing.T) {
				c := d.Spec.Template.Spec.Containers[0]
				env, err := effectiveEnv(r, c)
				if err != nil {
					t.Fatal(err)
				}
				cfg := f.configs[b]
				for _, v := range cfg.Vars {
					src, ok := env[v.Name]
					if !ok {
						t.Errorf("%s (%s) is not set", v.Name, v.Where)
						continue
					}
					if v.Secret && src.Kind != "secret" {
						t.Errorf("%s is a secret but comes from %s: reference a Secret with secretKeyRef", v.Name, src)
					}
					if v.Required {
						switch {
						case src.Kind == "secret" && src.Optional:
							t.Errorf("%s is required but its secretKeyRef is optional", v.Name)
						case (src.Kind == "value" || src.Kind == "configMap") && strings.TrimSpace(src.Value) == "":
							t.Errorf("%s is required but empty", v.Name)
						}
					}
				}
				for name, src := range env {
					if !strings.HasPrefix(name, cfg.Prefix+"_") || src.Shared {
						continue
					}
					if _, ok := cfg.Var(name); !ok {
						t.Errorf("%s is set (%s) but %s reads no such variable", name, src, b)
					}
				}
				for _, v := range cfg.Vars {
					if v.NoPrefix || !(strings.HasSuffix(v.Name, "_GRPC_ADDR") || strings.HasSuffix(v.Name, "_HTTP_ADDR")) {
						continue
					}
					host, port, err := net.SplitHostPort(value(env, v.Name))
					if err != nil {
						t.Errorf("%s=%q: %v", v.Name, value(env, v.Name), err)
						continue
					}
					if host != "" && host != "0.0.0.0" && host != "::" {
						t.Errorf("%s=%q listens on %s only: unreachable from other pods and probes", v.Name, value(env, v.Name), host)
					}
					if port != strconv.Itoa(int(c.Ports[0].ContainerPort)) {
						t.Errorf("%s=%q, but the container port is %d", v.Name, value(env, v.Name), c.Ports[0].ContainerPort)
					}
				}
				for _, v := range cfg.Vars {
					if strings.HasSuffix(v.Name, "_WEB_DIR") {
						img, _ := f.images[b].file.Final().Env()
						if got := value(env, v.Name); got != img[v.Name] {
							t.Errorf("%s=%q, but the image puts the web client in %q", v.Name, got, img[v.Name])
						}
					}
				}
			})
		}
	})
}

// TestAddresses: every address a binary reads points where it should. <SERVICE>_ADDR names
// that service's headless Service and port (dns:///…, for client-side round robin over every
// pod), and only along the call graph; NATS_URL names the NATS
// client Service; DATABASE_URL is the CloudNativePG Cluster's application Secret.
func TestAddresses(t *testing.T) {
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		ns := namespaceOf(r)
		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			env, err := effectiveEnv(r, d.Spec.Template.Spec.Containers[0])
			if err != nil {
				t.Fatal(err)
			}
			cfg := f.configs[b]
			for _, v := range cfg.Vars {
				switch {
				case v.NoPrefix && strings.HasSuffix(v.Name, "_ADDR"):
					target := strings.ToLower(strings.TrimSuffix(v.Name, "_ADDR"))
					if target == b {
						continue // service.Base's IDENTITY_ADDR, in identity itself: it verifies with its own keys
					}
					if _, ok := r.Deployments[target]; !ok {
						t.Errorf("%s reads %s, but there is no %s Deployment", b, v.Name, target)
						continue
					}
					if !calls(b, target) {
						t.Errorf("%s reads %s, but %s → %s is not in the architecture's call graph", b, v.Name, b, target)
					}
					// gRPC callers balance round-robin over what the name resolves to: only a
					// headless Service resolves to every pod (a ClusterIP is one address).
					addr := value(env, v.Name)
					hostPort, ok := strings.CutPrefix(addr, "dns:///")
					if !ok {
						t.Errorf("%s: %s=%q: want dns:///<headless Service>:<port>, so that the caller spreads its calls over every %s pod", b, v.Name, addr, target)
						continue
					}
					svc := checkServiceAddress(t, r, ns, b, v.Name, hostPort, deploymentPod(r.Deployments[target]))
					if svc != nil && (svc.Spec.ClusterIP != corev1.ClusterIPNone || svc.Spec.PublishNotReadyAddresses) {
						t.Errorf("%s: %s=%q: Service %s must be headless (clusterIP: None) and list only ready pods", b, v.Name, addr, svc.Name)
					}
				case v.Name == "NATS_URL":
					u, err := url.Parse(value(env, v.Name))
					if err != nil || u.Scheme != "nats" {
						t.Errorf("%s: NATS_URL=%q is not a nats:// URL", b, value(env, v.Name))
						continue
					}
					nats, ok := r.StatefulSets["nats"]
					if !ok {
						t.Errorf("no nats StatefulSet")
						continue
					}
					checkServiceAddress(t, r, ns, b, v.Name, u.Host, statefulSetPod(nats))
				case v.Name == "DATABASE_URL":
					src := env[v.Name]
					if len(r.Clusters) != 1 {
						t.Errorf("want one CloudNativePG Cluster, got %d", len(r.Clusters))
						continue
					}
					if want := r.Clusters[0].Name + "-app"; src.Kind != "secret" || src.Name != want || src.Key != "uri" {
						t.Errorf("%s: DATABASE_URL from %s, want Secret %s key uri (written by CloudNativePG)", b, src, want)
					}
				}
			}
			for _, callee := range callGraph[b] {
				if _, ok := cfg.Var(strings.ToUpper(callee) + "_ADDR"); !ok {
					t.Logf("note: %s → %s is in the call graph, but %s reads no %s_ADDR yet", b, callee, b, strings.ToUpper(callee))
				}
			}
		}
	})
}

// checkServiceAddress: addr (host:port) names a Service in ns that selects pod, on a port
// that reaches one of the pod's container ports. It returns the Service, nil when it fails.
func checkServiceAddress(t *testing.T, r *Rendered, ns, b, name, addr string, pod Pod) *corev1.Service {
	t.Helper()
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		t.Errorf("%s: %s=%q: %v", b, name, addr, err)
		return nil
	}
	svcName, rest, _ := strings.Cut(host, ".")
	if rest != "" && rest != ns && !strings.HasPrefix(rest, ns+".svc") {
		t.Errorf("%s: %s=%q points outside the namespace %s", b, name, addr, ns)
		return nil
	}
	svc, ok := r.Services[svcName]
	if !ok {
		t.Errorf("%s: %s=%q: no Service %s", b, name, addr, svcName)
		return nil
	}
	if len(svc.Spec.Selector) == 0 || !labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("%s: %s=%q: Service %s does not select the %s pods", b, name, addr, svcName, pod.Name)
		return nil
	}
	port, _ := strconv.Atoi(portStr)
	for _, sp := range svc.Spec.Ports {
		if sp.Port == int32(port) {
			if _, ok := resolvePort(pod.Ports, sp.TargetPort, sp.Port); ok {
				return svc
			}
		}
	}
	t.Errorf("%s: %s=%q: Service %s has no port %s reaching a %s container port", b, name, addr, svcName, portStr, pod.Name)
	return nil
}

// TestAvailability: a PodDisruptionBudget and a HorizontalPodAutoscaler per Deployment.
func TestAvailability(t *testing.T) {
	forOverlays(t, func(t *testing.T, _ *fixture, r *Rendered) {
		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			var pdbs, hpas []string
			minReplicas := int32(1)
			for _, h := range r.HPAs {
				ref := h.Spec.ScaleTargetRef
				if ref.Kind != "Deployment" || ref.Name != b || ref.APIVersion != "apps/v1" {
					continue
				}
				hpas = append(hpas, h.Name)
				if h.Spec.MinReplicas != nil {
					minReplicas = *h.Spec.MinReplicas
				}
				if minReplicas < 2 || h.Spec.MaxReplicas < minReplicas || h.Spec.MaxReplicas < 10 {
					t.Errorf("HPA %s: %d-%d replicas, want at least 2-10", h.Name, minReplicas, h.Spec.MaxReplicas)
				}
				cpu := false
				for _, m := range h.Spec.Metrics {
					if m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Target.AverageUtilization != nil && *m.Resource.Target.AverageUtilization == 70 {
						cpu = true
					}
				}
				if !cpu {
					t.Errorf("HPA %s does not target 70 %% CPU utilization", h.Name)
				}
			}
			for _, p := range r.PDBs {
				sel := p.Spec.Selector
				if sel == nil || !labels.SelectorFromSet(sel.MatchLabels).Matches(labels.Set(d.Spec.Template.Labels)) {
					continue
				}
				pdbs = append(pdbs, p.Name)
				if p.Spec.MinAvailable == nil || p.Spec.MinAvailable.Type != intstr.Int || p.Spec.MinAvailable.IntVal < 1 {
					t.Errorf("PDB %s: want minAvailable ≥ 1 (a number)", p.Name)
				} else if p.Spec.MinAvailable.IntVal >= minReplicas {
					t.Errorf("PDB %s: minAvailable %d with at least %d replicas blocks every node drain", p.Name, p.Spec.MinAvailable.IntVal, minReplicas)
				}
			}
			if len(pdbs) != 1 {
				t.Errorf("%s: want one PodDisruptionBudget, got %v", b, pdbs)
			}
			if len(hpas) != 1 {
				t.Errorf("%s: want one HorizontalPodAutoscaler, got %v", b, hpas)
			}
			if cpu := d.Spec.Template.Spec.Containers[0].Resources.Requests.Cpu(); cpu.IsZero() {
				t.Errorf("%s: the HPA's CPU utilization needs a CPU request", b)
			}
		}
	})
}

// TestStatefulComponents: NATS is a 3-node JetStream cluster on volumes; PostgreSQL is one
// CloudNativePG Cluster; streams are never replicated more than NATS has servers.
func TestStatefulComponents(t *testing.T) {
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		nats, ok := r.StatefulSets["nats"]
		if !ok {
			t.Fatal("no nats StatefulSet")
		}
		replicas := int32(1)
		if nats.Spec.Replicas != nil {
			replicas = *nats.Spec.Replicas
		}
		if replicas != 3 {
			t.Errorf("NATS has %d servers, want 3", replicas)
		}
		if len(nats.Spec.VolumeClaimTemplates) != 1 {
			t.Errorf("NATS: want one volumeClaimTemplate (JetStream file storage)")
		}
		head, ok := r.Services[nats.Spec.ServiceName]
		if !ok || head.Spec.ClusterIP != corev1.ClusterIPNone {
			t.Errorf("NATS: serviceName %q is not a headless Service", nats.Spec.ServiceName)
		} else if !head.Spec.PublishNotReadyAddresses {
			t.Errorf("NATS: the headless Service must publish not-ready addresses, or the servers cannot find each other at start")
		}
		c := nats.Spec.Template.Spec.Containers[0]
		checkContainerSecurity(t, c)
		if c.Resources.Limits.Memory().IsZero() || c.Resources.Requests.Memory().IsZero() {
			t.Errorf("NATS: memory request and limit must be set")
		}
		// The configuration: JetStream on the volume, one route per server.
		var conf string
		for _, v := range nats.Spec.Template.Spec.Volumes {
			if v.ConfigMap != nil {
				cm, ok := r.ConfigMaps[v.ConfigMap.Name]
				if !ok {
					t.Fatalf("NATS: ConfigMap %s is not in the render", v.ConfigMap.Name)
				}
				for _, data := range cm.Data {
					conf += data
				}
			}
		}
		if !strings.Contains(conf, "jetstream") || !strings.Contains(conf, "store_dir") {
			t.Errorf("NATS: the configuration does not enable JetStream file storage")
		}
		for i := range int(replicas) {
			route := fmt.Sprintf("nats://%s-%d.%s:6222", nats.Name, i, nats.Spec.ServiceName)
			if !strings.Contains(conf, route) {
				t.Errorf("NATS: the cluster routes lack %s", route)
			}
		}
		pdb := false
		for _, p := range r.PDBs {
			if p.Spec.Selector != nil && labels.SelectorFromSet(p.Spec.Selector.MatchLabels).Matches(labels.Set(nats.Spec.Template.Labels)) {
				pdb = true
			}
		}
		if !pdb {
			t.Errorf("NATS has no PodDisruptionBudget")
		}

		if len(r.Clusters) != 1 {
			t.Fatalf("want one CloudNativePG Cluster, got %d", len(r.Clusters))
		}
		pg := r.Clusters[0]
		if pg.Spec.Instances < 1 || pg.Spec.Bootstrap.InitDB.Database == "" || pg.Spec.Storage.Size == "" {
			t.Errorf("Cluster %s: instances, bootstrap.initdb.database and storage.size are required", pg.Name)
		}
		if _, err := resource.ParseQuantity(pg.Spec.Storage.Size); err != nil {
			t.Errorf("Cluster %s: storage.size: %v", pg.Name, err)
		}

		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			env, err := effectiveEnv(r, d.Spec.Template.Spec.Containers[0])
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := f.configs[b].Var("STREAM_REPLICAS"); !ok {
				continue
			}
			n, err := strconv.Atoi(value(env, "STREAM_REPLICAS"))
			if err != nil || n < 1 || int32(n) > replicas {
				t.Errorf("%s: STREAM_REPLICAS=%q must be between 1 and the %d NATS servers", b, value(env, "STREAM_REPLICAS"), replicas)
			}
		}
	})
}

// TestProduction: the prod overlay runs more replicas than dev, streams replicated 3 times,
// three PostgreSQL instances, an https origin served by its Ingress, production settings, and
// resources at least dev's.
func TestProduction(t *testing.T) {
	f := load(t)
	prod, dev := f.overlays["prod"], f.overlays["dev"]
	if prod == nil || dev == nil {
		t.Fatalf("want overlays dev and prod, have %v", f.names)
	}
	minOf := func(r *Rendered, b string) int32 {
		for _, h := range r.HPAs {
			if h.Spec.ScaleTargetRef.Name == b && h.Spec.MinReplicas != nil {
				return *h.Spec.MinReplicas
			}
		}
		return 0
	}
	for _, b := range binaries {
		pd, dd := prod.Deployments[b], dev.Deployments[b]
		if pd == nil || dd == nil {
			continue
		}
		if minOf(prod, b) < 3 || minOf(prod, b) <= minOf(dev, b) {
			t.Errorf("%s: prod runs at least %d replicas, dev %d: want prod ≥ 3 and more than dev", b, minOf(prod, b), minOf(dev, b))
		}
		pr, dr := pd.Spec.Template.Spec.Containers[0].Resources, dd.Spec.Template.Spec.Containers[0].Resources
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if a, b2 := pr.Requests[name], dr.Requests[name]; a.Cmp(b2) < 0 {
				t.Errorf("%s: prod %s request %s below dev's %s", b, name, a.String(), b2.String())
			}
			if a, b2 := pr.Limits[name], dr.Limits[name]; a.Cmp(b2) < 0 {
				t.Errorf("%s: prod %s limit %s below dev's %s", b, name, a.String(), b2.String())
			}
		}
		env, err := effectiveEnv(prod, pd.Spec.Template.Spec.Containers[0])
		if err != nil {
			t.Fatal(err)
		}
		cfg := f.configs[b]
		expect := map[string]string{"STREAM_REPLICAS": "3", "THUMELA_ENV": "production", "BFF_DEV_MODE": "false", "BFF_INSECURE_COOKIES": "false", "LOG_LEVEL": "info"}
		for k, want := range expect {
			if _, reads := cfg.Var(k); reads && value(env, k) != want {
				t.Errorf("%s: prod %s=%q, want %q", b, k, value(env, k), want)
			}
		}
		if _, reads := cfg.Var("BFF_PUBLIC_ORIGIN"); reads {
			origin := value(env, "BFF_PUBLIC_ORIGIN")
			u, err := url.Parse(origin)
			if err != nil || u.Scheme != "https" || u.Host == "" {
				t.Errorf("prod BFF_PUBLIC_ORIGIN=%q is not an https origin", origin)
			} else {
				checkIngress(t, prod, u.Host, "/", "bff")
				// The published listeners (the SMS webhook) on the same public origin.
				for _, ls := range listeners {
					for _, l := range ls {
						if l.Path != "" {
							checkIngress(t, prod, u.Host, l.Path, l.Service)
						}
					}
				}
			}
		}
	}
	// The listeners on a link outside the cluster (the ATM switches'): reachable from it.
	for _, b := range binaries {
		if d := prod.Deployments[b]; d != nil {
			for _, l := range listeners[b] {
				if l.Link != "" {
					checkLinkService(t, prod, d, b, l)
				}
			}
		}
	}
	if len(prod.Clusters) == 1 && prod.Clusters[0].Spec.Instances != 3 {
		t.Errorf("prod PostgreSQL has %d instances, want 3", prod.Clusters[0].Spec.Instances)
	}
}

// checkLinkService: the Service of a listener on a link outside the cluster is a LoadBalancer
// that keeps the client's address (externalTrafficPolicy: Local; with Cluster, nodes SNAT the
// connections and the NetworkPolicy's ipBlock never matches) and admits, at the load balancer,
// only addresses that the NetworkPolicy admits too (loadBalancerSourceRanges within its
// ipBlocks): the two lists name the same link.
func checkLinkService(t *testing.T, r *Rendered, d *appsv1.Deployment, b string, l listener) {
	t.Helper()
	svc, ok := r.Services[l.Service]
	if !ok {
		t.Errorf("prod: no Service %s in front of %s's %s port", l.Service, b, l.Port)
		return
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		t.Errorf("prod: Service %s is %q: %s connects from outside the cluster, through a LoadBalancer", svc.Name, svc.Spec.Type, l.Link)
	}
	if svc.Spec.ExternalTrafficPolicy != corev1.ServiceExternalTrafficPolicyLocal {
		t.Errorf("prod: Service %s: externalTrafficPolicy %q, want Local, or the nodes replace %s's addresses with their own and the NetworkPolicy admits nothing", svc.Name, svc.Spec.ExternalTrafficPolicy, l.Link)
	}
	if len(svc.Spec.LoadBalancerSourceRanges) == 0 {
		t.Errorf("prod: Service %s has no loadBalancerSourceRanges: the load balancer would admit any address", svc.Name)
	}
	ps, err := NewPolicies(r.NetworkPolicies)
	if err != nil {
		t.Fatal(err)
	}
	pod := deploymentPod(d)
	cp, ok := containerPort(pod.Ports, l.Port, 0)
	if !ok {
		return // TestDeployments reports it
	}
	blocks, err := ps.IngressIPBlocks(pod, cp.ContainerPort)
	if err != nil {
		t.Fatal(err)
	}
	for _, src := range svc.Spec.LoadBalancerSourceRanges {
		rng, err := netip.ParsePrefix(src)
		if err != nil {
			t.Errorf("prod: Service %s: loadBalancerSourceRanges %q: %v", svc.Name, src, err)
			continue
		}
		within := false
		for _, blk := range blocks {
			cidr, err := netip.ParsePrefix(blk.CIDR)
			if err != nil || cidr.Bits() > rng.Bits() || !cidr.Contains(rng.Addr()) {
				continue
			}
			within = true
			for _, e := range blk.Except {
				if ep, err := netip.ParsePrefix(e); err == nil && ep.Overlaps(rng) {
					within = false
				}
			}
			if within {
				break
			}
		}
		if !within {
			t.Errorf("prod: Service %s admits %s at the load balancer, but no NetworkPolicy ipBlock admits it to %s:%d: name the same link in both", svc.Name, src, b, cp.ContainerPort)
		}
	}
}

// checkIngress: an Ingress serves host over TLS and routes path (a Prefix) to a port of the
// Service svc.
func checkIngress(t *testing.T, r *Rendered, host, path, svcName string) {
	t.Helper()
	for _, ing := range r.Ingresses {
		tls := false
		for _, x := range ing.Spec.TLS {
			for _, h := range x.Hosts {
				if h == host && x.SecretName != "" {
					tls = true
				}
			}
		}
		for _, rule := range ing.Spec.Rules {
			if rule.Host != host || rule.HTTP == nil {
				continue
			}
			for _, p := range rule.HTTP.Paths {
				be := p.Backend.Service
				if p.Path != path || be == nil || be.Name != svcName {
					continue
				}
				if p.PathType == nil || *p.PathType != networkingv1.PathTypePrefix {
					t.Errorf("Ingress %s: path %s is not pathType Prefix", ing.Name, path)
				}
				svc, ok := r.Services[svcName]
				if !ok {
					t.Errorf("Ingress %s routes to Service %s, which is not rendered", ing.Name, svcName)
					return
				}
				for _, sp := range svc.Spec.Ports {
					if (be.Port.Name != "" && sp.Name == be.Port.Name) || (be.Port.Number != 0 && sp.Port == be.Port.Number) {
						if !tls {
							t.Errorf("Ingress %s serves %s without TLS", ing.Name, host)
						}
						return
					}
				}
				t.Errorf("Ingress %s: Service %s has no port %v", ing.Name, svcName, be.Port)
				return
			}
		}
	}
	t.Errorf("no Ingress routes https://%s%s to the Service %s", host, path, svcName)
}
