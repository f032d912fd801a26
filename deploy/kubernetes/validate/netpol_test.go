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

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// TestNetworkPolicies evaluates the rendered NetworkPolicies as a cluster would and checks:
// between Thumela's processes exactly the architecture's calls are allowed (both the caller's
// egress and the callee's ingress); ingress is denied by default; each process reaches
// PostgreSQL only if it reads DATABASE_URL, NATS only if it reads NATS_URL, and DNS; nothing
// else is reachable from the processes but the observability collector and, for notifications
// only, the SMS provider and the SMTP relay on their ports outside the cluster; the BFF and the
// published listeners (the SMS webhook) are reachable from the ingress controller only; a
// listener on a link outside the cluster (cashout's ISO 8583 port, from the ATM switches) from
// that link's addresses only, which reach nothing else; the metrics ports are scraped from the
// monitoring namespace only; PostgreSQL and NATS accept exactly their clients.
func TestNetworkPolicies(t *testing.T) {
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		ns := namespaceOf(r)
		ps, err := NewPolicies(r.NetworkPolicies)
		if err != nil {
			t.Fatal(err)
		}
		allow := func(src, dst Pod, port int32, proto corev1.Protocol) bool {
			ok, err := ps.Allowed(src, dst, port, proto)
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		pods := map[string]Pod{}
		for _, b := range binaries {
			if d, ok := r.Deployments[b]; ok {
				pods[b] = deploymentPod(d)
			}
		}

		// Default deny: a pod nobody names is unreachable, even from its own namespace.
		stranger := PodIn("stranger", ns, map[string]string{"app.kubernetes.io/name": "stranger"}, []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}})
		for b, p := range pods {
			for _, cp := range p.Ports {
				if allow(stranger, p, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("an unlisted pod of the namespace reaches %s:%d: ingress is not denied by default", b, cp.ContainerPort)
				}
			}
		}
		if ok, _ := ps.Selected(networkingv1.PolicyTypeIngress, stranger); !ok {
			t.Errorf("no default-deny ingress policy selects every pod of the namespace")
		}

		// The call graph, exactly.
		var got, want []string
		for _, a := range binaries {
			for _, b := range binaries {
				if a == b {
					continue
				}
				if calls(a, b) {
					want = append(want, a+"→"+b)
				}
				for _, cp := range pods[b].Ports {
					if allow(pods[a], pods[b], cp.ContainerPort, corev1.ProtocolTCP) {
						got = append(got, a+"→"+b)
						break
					}
				}
			}
		}
		sort.Strings(got)
		sort.Strings(want)
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("NetworkPolicies allow\n  %s\nthe call graph is\n  %s", strings.Join(got, " "), strings.Join(want, " "))
		}

		// Infrastructure.
		var pg, nats Pod
		if len(r.Clusters) == 1 {
			name := r.Clusters[0].Name
			pg = PodIn(name+"-1", ns, map[string]string{"cnpg.io/cluster": name, "cnpg.io/podRole": "instance", "cnpg.io/instanceRole": "primary"},
				[]corev1.ContainerPort{{Name: "postgresql", ContainerPort: 5432}, {Name: "status", ContainerPort: 8000}})
		}
		if s, ok := r.StatefulSets["nats"]; ok {
			nats = statefulSetPod(s)
			nats.Name = "nats-0"
		}
		dns := Pod{Name: "coredns", Namespace: "kube-system", NSLabels: map[string]string{"kubernetes.io/metadata.name": "kube-system"},
			Labels: map[string]string{"k8s-app": "kube-dns"}, Ports: []corev1.ContainerPort{{Name: "dns", ContainerPort: 53, Protocol: corev1.ProtocolUDP}, {Name: "dns-tcp", ContainerPort: 53}}}
		outside := Pod{Name: "elsewhere", Namespace: "elsewhere", NSLabels: map[string]string{"kubernetes.io/metadata.name": "elsewhere"},
			Labels: map[string]string{"app": "x"}, Ports: []corev1.ContainerPort{{Name: "https", ContainerPort: 443}, {Name: "pg", ContainerPort: 5432}}}
		for _, b := range binaries {
			p, ok := pods[b]
			if !ok {
				continue
			}
			if ok, _ := ps.Selected(networkingv1.PolicyTypeEgress, p); !ok {
				t.Errorf("%s: no egress policy selects it, so it may reach anything", b)
			}
			_, readsDB := f.configs[b].Var("DATABASE_URL")
			if got := allow(p, pg, 5432, corev1.ProtocolTCP); got != readsDB {
				t.Errorf("%s → PostgreSQL:5432 allowed=%v, but %s reads DATABASE_URL=%v", b, got, b, readsDB)
			}
			if allow(p, pg, 8000, corev1.ProtocolTCP) {
				t.Errorf("%s reaches PostgreSQL's status port", b)
			}
			_, readsNATS := f.configs[b].Var("NATS_URL")
			if got := allow(p, nats, 4222, corev1.ProtocolTCP); got != readsNATS {
				t.Errorf("%s → NATS:4222 allowed=%v, but %s reads NATS_URL=%v", b, got, b, readsNATS)
			}
			if allow(p, nats, 6222, corev1.ProtocolTCP) || allow(p, nats, 8222, corev1.ProtocolTCP) {
				t.Errorf("%s reaches NATS's cluster or monitoring port", b)
			}
			if !allow(p, dns, 53, corev1.ProtocolUDP) || !allow(p, dns, 53, corev1.ProtocolTCP) {
				t.Errorf("%s cannot resolve names (DNS 53 UDP and TCP)", b)
			}
			for _, cp := range outside.Ports {
				if allow(p, outside, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("%s reaches a pod of another namespace on %d: egress is not restricted", b, cp.ContainerPort)
				}
			}
			if allow(stranger, pg, 5432, corev1.ProtocolTCP) || allow(stranger, nats, 4222, corev1.ProtocolTCP) {
				t.Errorf("an unlisted pod reaches PostgreSQL or NATS")
			}
		}

		// Outside the cluster: a public address (the SMS provider, the SMTP relay) on the ports
		// listed in external, from those binaries only; the cloud's metadata endpoint never; and
		// nothing outside reaches a pod but through the ingress controller.
		internet := External("api.bulksms.com", "203.0.113.10", 25, 80, 443, 465, 587, 5432)
		metadata := External("metadata", "169.254.169.254", 80, 443)
		for _, b := range binaries {
			p, ok := pods[b]
			if !ok {
				continue
			}
			for _, cp := range internet.Ports {
				want := false
				for _, port := range external[b].Ports {
					want = want || port == cp.ContainerPort
				}
				if got := allow(p, internet, cp.ContainerPort, corev1.ProtocolTCP); got != want {
					t.Errorf("%s → a public address on %d allowed=%v, want %v (external: %v)", b, cp.ContainerPort, got, want, external[b].Ports)
				}
			}
			for _, cp := range metadata.Ports {
				if allow(p, metadata, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("%s reaches the metadata endpoint %s:%d", b, metadata.IP, cp.ContainerPort)
				}
			}
			for _, cp := range p.Ports {
				if allow(internet, p, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("an address outside the cluster reaches %s:%d directly", b, cp.ContainerPort)
				}
			}
			// The endpoints the binary is configured with are among the ports it may reach.
			env, err := effectiveEnv(r, r.Deployments[b].Spec.Template.Spec.Containers[0])
			if err != nil {
				t.Fatal(err)
			}
			for _, name := range external[b].Vars {
				port, err := endpointPort(value(env, name))
				if err != nil {
					t.Errorf("%s: %s=%q: %v", b, name, value(env, name), err)
					continue
				}
				if !allow(p, internet, port, corev1.ProtocolTCP) {
					t.Errorf("%s: %s=%q, but its NetworkPolicies do not let it reach port %d outside the cluster", b, name, value(env, name), port)
				}
			}
		}

		// The BFF: from the ingress controller only.
		ingress := Pod{Name: "ingress-nginx-controller", Namespace: "ingress-nginx", NSLabels: map[string]string{"kubernetes.io/metadata.name": "ingress-nginx"},
			Labels: map[string]string{"app.kubernetes.io/name": "ingress-nginx"}}
		if bff, ok := pods["bff"]; ok {
			port := bff.Ports[0].ContainerPort
			if !allow(ingress, bff, port, corev1.ProtocolTCP) {
				t.Errorf("the ingress controller cannot reach the BFF on %d", port)
			}
			if allow(outside, bff, port, corev1.ProtocolTCP) {
				t.Errorf("a pod of another namespace reaches the BFF")
			}
			for _, b := range binaries {
				if b != "bff" && allow(ingress, pods[b], 9090, corev1.ProtocolTCP) {
					t.Errorf("the ingress controller reaches %s directly", b)
				}
			}
		}
		// The published listeners (the SMS webhook): from the ingress controller, nobody else
		// outside the call graph (the loop above covers the processes).
		for b, ls := range listeners {
			p, ok := pods[b]
			if !ok {
				continue
			}
			for _, l := range ls {
				cp, ok := containerPort(p.Ports, l.Port, 0)
				if !ok {
					continue // TestDeployments reports it
				}
				if got := allow(ingress, p, cp.ContainerPort, corev1.ProtocolTCP); got != (l.Path != "") {
					t.Errorf("the ingress controller → %s:%d (%s) allowed=%v, want %v (published: %q)", b, cp.ContainerPort, l.Port, got, l.Path != "", l.Path)
				}
				if allow(outside, p, cp.ContainerPort, corev1.ProtocolTCP) || allow(stranger, p, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("a pod other than the ingress controller reaches %s's %s port", b, l.Port)
				}
			}
		}

		// The links outside the cluster (the ATM switches'): each listener on one is admitted
		// from ipBlocks, on its port only; an address of each block reaches that port and no
		// other port of any process; no process opens a connection to it (the switch connects
		// to the gateway, never the reverse); and no ipBlock admits anything to a port that is
		// not such a listener.
		linkPorts := map[string]map[int32]bool{}
		for b, ls := range listeners {
			p, ok := pods[b]
			if !ok {
				continue
			}
			for _, l := range ls {
				if l.Link == "" {
					continue
				}
				cp, ok := containerPort(p.Ports, l.Port, 0)
				if !ok {
					continue // TestDeployments reports it
				}
				if linkPorts[b] == nil {
					linkPorts[b] = map[int32]bool{}
				}
				linkPorts[b][cp.ContainerPort] = true
				blocks, err := ps.IngressIPBlocks(p, cp.ContainerPort)
				if err != nil {
					t.Fatal(err)
				}
				if len(blocks) == 0 {
					t.Errorf("no NetworkPolicy admits %s (an ipBlock) to %s:%d (%s)", l.Link, b, cp.ContainerPort, l.Port)
				}
				for _, blk := range blocks {
					addr, ok := addressIn(blk)
					if !ok {
						t.Errorf("%s's ipBlock %s: every address is excepted", b, blk.CIDR)
						continue
					}
					link := External(l.Link, addr.String(), cp.ContainerPort)
					link.Ports = append(link.Ports, p.Ports...)
					if !allow(link, p, cp.ContainerPort, corev1.ProtocolTCP) {
						t.Errorf("%s (%s) cannot reach %s:%d", l.Link, addr, b, cp.ContainerPort)
					}
					for _, q := range binaries {
						qp, ok := pods[q]
						if !ok {
							continue
						}
						for _, qc := range qp.Ports {
							if (q != b || qc.ContainerPort != cp.ContainerPort) && allow(link, qp, qc.ContainerPort, corev1.ProtocolTCP) {
								t.Errorf("%s (%s) reaches %s:%d: only %s:%d is for it", l.Link, addr, q, qc.ContainerPort, b, cp.ContainerPort)
							}
						}
						for _, lc := range link.Ports {
							if allow(qp, link, lc.ContainerPort, corev1.ProtocolTCP) {
								t.Errorf("%s opens connections to %s (%s:%d): the link connects to the gateway, never the reverse", q, l.Link, addr, lc.ContainerPort)
							}
						}
					}
				}
			}
		}
		for _, b := range binaries {
			p, ok := pods[b]
			if !ok {
				continue
			}
			npps, err := ps.IngressIPBlockPorts(p)
			if err != nil {
				t.Fatal(err)
			}
			for _, npp := range npps {
				if npp.Port == nil {
					t.Errorf("%s: an ipBlock ingress rule names a protocol but no port", b)
					continue
				}
				cp, ok := resolvePort(p.Ports, *npp.Port, 0)
				if !ok || !linkPorts[b][cp.ContainerPort] || npp.EndPort != nil {
					t.Errorf("%s: an ipBlock admits addresses outside the cluster to port %s, which is not a listener on a link (listeners: %v)", b, npp.Port.String(), listeners[b])
				}
			}
		}

		// Metrics: Prometheus in the monitoring namespace scrapes each process's metrics port,
		// and reaches nothing else of it; nobody else reaches the metrics port.
		monitoring := Pod{Name: "prometheus-0", Namespace: "monitoring", NSLabels: map[string]string{"kubernetes.io/metadata.name": "monitoring"},
			Labels: map[string]string{"app.kubernetes.io/name": "prometheus"}}
		for _, b := range binaries {
			p, ok := pods[b]
			if !ok {
				continue
			}
			mp, ok := containerPort(p.Ports, "metrics", 0)
			if !ok {
				if _, reads := f.configs[b].Var(f.configs[b].Prefix + "_METRICS_ADDR"); reads {
					t.Errorf("%s serves metrics but has no container port named metrics", b)
				}
				continue
			}
			if !allow(monitoring, p, mp.ContainerPort, corev1.ProtocolTCP) {
				t.Errorf("the monitoring namespace cannot scrape %s on %d", b, mp.ContainerPort)
			}
			for _, cp := range p.Ports {
				if cp.Name != "metrics" && allow(monitoring, p, cp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("the monitoring namespace reaches %s on its serving port %d", b, cp.ContainerPort)
				}
			}
			if allow(outside, p, mp.ContainerPort, corev1.ProtocolTCP) {
				t.Errorf("a pod of another namespace reaches %s's metrics", b)
			}
			for _, other := range binaries {
				if q, ok := pods[other]; ok && other != b && allow(q, p, mp.ContainerPort, corev1.ProtocolTCP) {
					t.Errorf("%s reaches %s's metrics port", other, b)
				}
			}
		}

		// PostgreSQL replication and its operator; NATS routes.
		if len(r.Clusters) == 1 {
			pg2 := pg
			pg2.Name = pg.Name[:len(pg.Name)-1] + "2"
			operator := Pod{Name: "cnpg-controller-manager", Namespace: "cnpg-system", NSLabels: map[string]string{"kubernetes.io/metadata.name": "cnpg-system"},
				Labels: map[string]string{"app.kubernetes.io/name": "cloudnative-pg"}}
			if !allow(pg2, pg, 5432, corev1.ProtocolTCP) {
				t.Errorf("PostgreSQL instances cannot replicate from each other")
			}
			if !allow(operator, pg, 8000, corev1.ProtocolTCP) || !allow(operator, pg, 5432, corev1.ProtocolTCP) {
				t.Errorf("the CloudNativePG operator cannot reach the instances (8000, 5432)")
			}
		}
		if nats.Name != "" {
			nats1 := nats
			nats1.Name = "nats-1"
			if !allow(nats1, nats, 6222, corev1.ProtocolTCP) {
				t.Errorf("NATS servers cannot route to each other on 6222")
			}
		}
	})
}

// addressIn returns an address of the ipBlock that none of its excepts holds: the block's
// second address (its first may be a network address) when it is free, else the first free one
// of the next 256.
func addressIn(b *networkingv1.IPBlock) (netip.Addr, bool) {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return netip.Addr{}, false
	}
	a := cidr.Masked().Addr()
	if cidr.Bits() < a.BitLen() {
		a = a.Next()
	}
	for range 256 {
		if !cidr.Contains(a) {
			break
		}
		if inIPBlock(b, a) {
			return a, true
		}
		a = a.Next()
	}
	return netip.Addr{}, false
}

// endpointPort is the TCP port of an endpoint given as host:port or as a URL (its scheme's
// port when it names none).
func endpointPort(v string) (int32, error) {
	if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
		p := u.Port()
		switch {
		case p != "":
		case u.Scheme == "https":
			p = "443"
		case u.Scheme == "http":
			p = "80"
		default:
			return 0, fmt.Errorf("no port and no known scheme")
		}
		n, err := strconv.ParseUint(p, 10, 16)
		return int32(n), err
	}
	_, p, err := net.SplitHostPort(v)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(p, 10, 16)
	return int32(n), err
}
