package validate

import (
	"fmt"
	"net"
	"net/netip"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Pod is what NetworkPolicies match on: a pod's labels, its namespace's labels and its
// container ports (named ports resolve against them). An address outside the cluster is a Pod
// with an IP and no namespace (see External): only ipBlock peers match it.
type Pod struct {
	Name      string
	Namespace string
	NSLabels  map[string]string
	Labels    map[string]string
	Ports     []corev1.ContainerPort
	// IP is set for an address outside the cluster only. The cluster's own pods carry none:
	// their addresses are private (clusterRanges), which NewPolicies makes every ipBlock except.
	IP netip.Addr
}

// External makes an address outside the cluster listening on ports (TCP).
func External(name, ip string, ports ...int32) Pod {
	p := Pod{Name: name, IP: netip.MustParseAddr(ip)}
	for _, n := range ports {
		p.Ports = append(p.Ports, corev1.ContainerPort{ContainerPort: n, Protocol: corev1.ProtocolTCP})
	}
	return p
}

// clusterRanges hold every address inside a cluster on the common CNIs and clouds: pods and
// Services (RFC 1918, shared 100.64/10, IPv6 unique-local), and link-local, where the clouds'
// metadata endpoint (169.254.169.254) is; loopback for completeness.
var clusterRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
}

// PodIn makes a Pod in namespace ns (whose labels are the automatic name label).
func PodIn(name, ns string, lbls map[string]string, ports []corev1.ContainerPort) Pod {
	return Pod{Name: name, Namespace: ns, NSLabels: map[string]string{"kubernetes.io/metadata.name": ns}, Labels: lbls, Ports: ports}
}

// Policies evaluates a set of NetworkPolicies as the Kubernetes API defines them: a pod
// selected by no policy of a direction is open in that direction; a selected pod admits
// what the union of the selecting policies' rules admits.
type Policies struct {
	list []*networkingv1.NetworkPolicy
}

// NewPolicies checks that the policies use only what the evaluator understands: ipBlock peers
// each with ports; in egress (the way out of the cluster) each excepting every cluster range it
// overlaps, so that it can reach no pod, Service or metadata endpoint; in ingress (a link
// outside the cluster that connects to a pod directly, such as the ATM switches') each a
// network's addresses, not the internet (see checkIngressIPBlock). The evaluator then matches
// ipBlocks against addresses outside the cluster only.
func NewPolicies(list []*networkingv1.NetworkPolicy) (*Policies, error) {
	for _, np := range list {
		for _, r := range np.Spec.Ingress {
			for _, p := range r.From {
				if p.IPBlock == nil {
					continue
				}
				if len(r.Ports) == 0 {
					return nil, fmt.Errorf("NetworkPolicy %s: an ipBlock rule without ports opens every port of the pods to addresses outside the cluster", np.Name)
				}
				if err := checkIngressIPBlock(p.IPBlock); err != nil {
					return nil, fmt.Errorf("NetworkPolicy %s: %w", np.Name, err)
				}
			}
		}
		for _, r := range np.Spec.Egress {
			for _, p := range r.To {
				if p.IPBlock == nil {
					continue
				}
				if len(r.Ports) == 0 {
					return nil, fmt.Errorf("NetworkPolicy %s: an ipBlock rule without ports opens every port outside the cluster", np.Name)
				}
				if err := checkIPBlock(p.IPBlock); err != nil {
					return nil, fmt.Errorf("NetworkPolicy %s: %w", np.Name, err)
				}
			}
		}
	}
	return &Policies{list: list}, nil
}

// checkIPBlock: the block's CIDR and excepts parse, and every cluster range the CIDR overlaps
// is inside one of its excepts.
func checkIPBlock(b *networkingv1.IPBlock) error {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return fmt.Errorf("ipBlock cidr %q: %w", b.CIDR, err)
	}
	_, cidrNet, err := net.ParseCIDR(b.CIDR)
	if err != nil {
		return fmt.Errorf("ipBlock cidr %q: %w", b.CIDR, err)
	}
	var except []netip.Prefix
	for _, e := range b.Except {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("ipBlock except %q: %w", e, err)
		}
		// The API server's rule (a strict subset, by net.IPNet.Contains: an IPv4-mapped IPv6
		// except under ::/0 is refused, for one).
		_, exceptNet, err := net.ParseCIDR(e)
		if err != nil {
			return fmt.Errorf("ipBlock except %q: %w", e, err)
		}
		if !cidrNet.Contains(exceptNet.IP) || p.Bits() <= cidr.Bits() {
			return fmt.Errorf("ipBlock except %s is not a strict subset of cidr %s", e, b.CIDR)
		}
		except = append(except, p)
	}
	for _, r := range clusterRanges {
		if !cidr.Overlaps(r) {
			continue
		}
		covered := false
		for _, e := range except {
			if e.Bits() <= r.Bits() && e.Contains(r.Addr()) {
				covered = true
			}
		}
		if !covered {
			return fmt.Errorf("ipBlock %s reaches %s (pods, Services or the metadata endpoint): add it to except", b.CIDR, r)
		}
	}
	return nil
}

// Ingress ipBlocks name a link's addresses: at most a /16 (IPv4) or a /48 (IPv6).
const (
	maxIngressBlockV4 = 16
	maxIngressBlockV6 = 48
)

// checkIngressIPBlock: the block's CIDR and excepts parse (excepts strict subsets), it is no
// wider than a link's addresses (the internet comes in through the ingress controller, never
// straight to a pod), and every cluster range it overlaps is either excepted or wider than the
// block: a switch reached over a private link has private addresses, which the operator keeps
// apart from the cluster's pod and Service CIDRs (the evaluator gives pods no address, so it
// cannot check that), but a block covering a whole private range would admit every pod.
func checkIngressIPBlock(b *networkingv1.IPBlock) error {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return fmt.Errorf("ipBlock cidr %q: %w", b.CIDR, err)
	}
	if cidr != cidr.Masked() {
		return fmt.Errorf("ipBlock cidr %s has host bits set (%s)", b.CIDR, cidr.Masked())
	}
	if (cidr.Addr().Is4() && cidr.Bits() < maxIngressBlockV4) || (cidr.Addr().Is6() && cidr.Bits() < maxIngressBlockV6) {
		return fmt.Errorf("ipBlock %s in ingress is wider than a link's addresses (/%d, /%d for IPv6): the internet reaches the pods through the ingress controller", b.CIDR, maxIngressBlockV4, maxIngressBlockV6)
	}
	var except []netip.Prefix
	for _, e := range b.Except {
		p, err := netip.ParsePrefix(e)
		if err != nil {
			return fmt.Errorf("ipBlock except %q: %w", e, err)
		}
		if !cidr.Contains(p.Addr()) || p.Bits() <= cidr.Bits() {
			return fmt.Errorf("ipBlock except %s is not a strict subset of cidr %s", e, b.CIDR)
		}
		except = append(except, p)
	}
	for _, r := range clusterRanges {
		if !cidr.Overlaps(r) || cidr.Bits() > r.Bits() {
			continue
		}
		covered := false
		for _, e := range except {
			if e.Bits() <= r.Bits() && e.Contains(r.Addr()) {
				covered = true
			}
		}
		if !covered {
			return fmt.Errorf("ipBlock %s in ingress covers %s, where the cluster's pods are: name the link's addresses", b.CIDR, r)
		}
	}
	return nil
}

// IngressIPBlocks lists the ipBlocks of the ingress rules that admit addresses outside the
// cluster to dst on port (TCP).
func (ps *Policies) IngressIPBlocks(dst Pod, port int32) ([]*networkingv1.IPBlock, error) {
	var out []*networkingv1.IPBlock
	for _, np := range ps.list {
		ok, err := selects(np, networkingv1.PolicyTypeIngress, dst)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, r := range np.Spec.Ingress {
			if !portMatches(r.Ports, dst, port, corev1.ProtocolTCP) {
				continue
			}
			for _, p := range r.From {
				if p.IPBlock != nil {
					out = append(out, p.IPBlock)
				}
			}
		}
	}
	return out, nil
}

// IngressIPBlockPorts lists, for each ingress rule with an ipBlock peer that selects pod, the
// ports it names (as written: a number or a name).
func (ps *Policies) IngressIPBlockPorts(pod Pod) ([]networkingv1.NetworkPolicyPort, error) {
	var out []networkingv1.NetworkPolicyPort
	for _, np := range ps.list {
		ok, err := selects(np, networkingv1.PolicyTypeIngress, pod)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		for _, r := range np.Spec.Ingress {
			for _, p := range r.From {
				if p.IPBlock != nil {
					out = append(out, r.Ports...)
					break
				}
			}
		}
	}
	return out, nil
}

// inIPBlock reports whether ip is in the block (its CIDR, none of its excepts).
func inIPBlock(b *networkingv1.IPBlock, ip netip.Addr) bool {
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil || !cidr.Contains(ip) {
		return false
	}
	for _, e := range b.Except {
		if p, err := netip.ParsePrefix(e); err == nil && p.Contains(ip) {
			return false
		}
	}
	return true
}

// Allowed reports whether src may open a connection to dst on port/proto: src's egress and
// dst's ingress must both admit it.
func (ps *Policies) Allowed(src, dst Pod, port int32, proto corev1.Protocol) (bool, error) {
	out, err := ps.direction(networkingv1.PolicyTypeEgress, src, dst, port, proto)
	if err != nil || !out {
		return false, err
	}
	return ps.direction(networkingv1.PolicyTypeIngress, src, dst, port, proto)
}

// Selected reports whether some policy of direction dir selects pod.
func (ps *Policies) Selected(dir networkingv1.PolicyType, pod Pod) (bool, error) {
	for _, np := range ps.list {
		ok, err := selects(np, dir, pod)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

func hasType(np *networkingv1.NetworkPolicy, dir networkingv1.PolicyType) bool {
	if len(np.Spec.PolicyTypes) == 0 { // the API's defaulting
		return dir == networkingv1.PolicyTypeIngress || (dir == networkingv1.PolicyTypeEgress && len(np.Spec.Egress) > 0)
	}
	for _, t := range np.Spec.PolicyTypes {
		if t == dir {
			return true
		}
	}
	return false
}

func selects(np *networkingv1.NetworkPolicy, dir networkingv1.PolicyType, pod Pod) (bool, error) {
	if np.Namespace != pod.Namespace || !hasType(np, dir) {
		return false, nil
	}
	return matchSelector(&np.Spec.PodSelector, pod.Labels)
}

func matchSelector(sel *metav1.LabelSelector, lbls map[string]string) (bool, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(lbls)), nil
}

func (ps *Policies) direction(dir networkingv1.PolicyType, src, dst Pod, port int32, proto corev1.Protocol) (bool, error) {
	subject, other := dst, src // ingress: policies of dst, peers are sources
	if dir == networkingv1.PolicyTypeEgress {
		subject, other = src, dst
	}
	selected := false
	for _, np := range ps.list {
		ok, err := selects(np, dir, subject)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		selected = true
		type rule struct {
			peers []networkingv1.NetworkPolicyPeer
			ports []networkingv1.NetworkPolicyPort
		}
		var rules []rule
		if dir == networkingv1.PolicyTypeIngress {
			for _, r := range np.Spec.Ingress {
				rules = append(rules, rule{r.From, r.Ports})
			}
		} else {
			for _, r := range np.Spec.Egress {
				rules = append(rules, rule{r.To, r.Ports})
			}
		}
		for _, r := range rules {
			if !portMatches(r.ports, dst, port, proto) {
				continue
			}
			ok, err := peersMatch(r.peers, np.Namespace, other)
			if err != nil {
				return false, err
			}
			if ok {
				return true, nil
			}
		}
	}
	return !selected, nil
}

func portMatches(ports []networkingv1.NetworkPolicyPort, dst Pod, port int32, proto corev1.Protocol) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		pp := corev1.ProtocolTCP
		if p.Protocol != nil {
			pp = *p.Protocol
		}
		if pp != proto {
			continue
		}
		if p.Port == nil {
			return true
		}
		if p.Port.Type == 0 { // a number, or a range with endPort
			end := p.Port.IntVal
			if p.EndPort != nil {
				end = *p.EndPort
			}
			if port >= p.Port.IntVal && port <= end {
				return true
			}
			continue
		}
		for _, cp := range dst.Ports { // a name: the destination pod's port of that name
			cproto := cp.Protocol
			if cproto == "" {
				cproto = corev1.ProtocolTCP
			}
			if cp.Name == p.Port.StrVal && cp.ContainerPort == port && cproto == proto {
				return true
			}
		}
	}
	return false
}

func peersMatch(peers []networkingv1.NetworkPolicyPeer, policyNS string, pod Pod) (bool, error) {
	if len(peers) == 0 {
		return true, nil
	}
	for _, p := range peers {
		// An ipBlock matches addresses outside the cluster only (NewPolicies made sure it
		// excepts the cluster's ranges); pod and namespace selectors match cluster pods only.
		if p.IPBlock != nil || pod.IP.IsValid() {
			if p.IPBlock != nil && pod.IP.IsValid() && inIPBlock(p.IPBlock, pod.IP) {
				return true, nil
			}
			continue
		}
		nsOK := pod.Namespace == policyNS
		if p.NamespaceSelector != nil {
			ok, err := matchSelector(p.NamespaceSelector, pod.NSLabels)
			if err != nil {
				return false, err
			}
			nsOK = ok
		}
		if !nsOK {
			continue
		}
		if p.PodSelector == nil {
			return true, nil
		}
		ok, err := matchSelector(p.PodSelector, pod.Labels)
		if err != nil {
			return false, err
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}
