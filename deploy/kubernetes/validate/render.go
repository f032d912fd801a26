package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// Cluster is the part of CloudNativePG's postgresql.cnpg.io/v1 Cluster that Thumela uses.
// Decoding is strict: a field not declared here fails, so a typo cannot pass silently.
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ClusterSpec `json:"spec"`
}

// ClusterSpec is the Cluster's spec, limited to the fields used.
type ClusterSpec struct {
	Instances             int                         `json:"instances"`
	ImageName             string                      `json:"imageName,omitempty"`
	PrimaryUpdateStrategy string                      `json:"primaryUpdateStrategy,omitempty"`
	PrimaryUpdateMethod   string                      `json:"primaryUpdateMethod,omitempty"`
	EnableSuperuserAccess *bool                       `json:"enableSuperuserAccess,omitempty"`
	Bootstrap             ClusterBootstrap            `json:"bootstrap"`
	PostgreSQL            *ClusterPostgreSQL          `json:"postgresql,omitempty"`
	Storage               ClusterStorage              `json:"storage"`
	WalStorage            *ClusterStorage             `json:"walStorage,omitempty"`
	Resources             corev1.ResourceRequirements `json:"resources"`
	Affinity              *ClusterAffinity            `json:"affinity,omitempty"`
}

// ClusterBootstrap creates the application database and its owner.
type ClusterBootstrap struct {
	InitDB struct {
		Database string `json:"database"`
		Owner    string `json:"owner"`
	} `json:"initdb"`
}

// ClusterPostgreSQL holds postgresql.conf parameters.
type ClusterPostgreSQL struct {
	Parameters map[string]string `json:"parameters,omitempty"`
}

// ClusterStorage is a volume per instance.
type ClusterStorage struct {
	Size         string  `json:"size"`
	StorageClass *string `json:"storageClass,omitempty"`
}

// ClusterAffinity spreads the instances.
type ClusterAffinity struct {
	EnablePodAntiAffinity *bool  `json:"enablePodAntiAffinity,omitempty"`
	TopologyKey           string `json:"topologyKey,omitempty"`
	PodAntiAffinityType   string `json:"podAntiAffinityType,omitempty"`
}

// Rendered is one overlay, rendered and decoded.
type Rendered struct {
	Overlay         string
	Namespaces      []*corev1.Namespace
	Deployments     map[string]*appsv1.Deployment
	StatefulSets    map[string]*appsv1.StatefulSet
	Services        map[string]*corev1.Service
	ConfigMaps      map[string]*corev1.ConfigMap
	ServiceAccounts map[string]*corev1.ServiceAccount
	PDBs            []*policyv1.PodDisruptionBudget
	HPAs            []*autoscalingv2.HorizontalPodAutoscaler
	NetworkPolicies []*networkingv1.NetworkPolicy
	Ingresses       []*networkingv1.Ingress
	Clusters        []*Cluster
	// Objects counts every object by "apiVersion/kind".
	Objects map[string]int
}

// Overlays lists the overlay folders under root/deploy/kubernetes/overlays.
func Overlays(root string) ([]string, error) {
	dir := filepath.Join(root, "deploy", "kubernetes", "overlays")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// Render builds root/deploy/kubernetes/overlays/<overlay> with kustomize and decodes every
// object strictly into its typed struct. Kinds Thumela does not use are an error, and so are
// Secrets: secrets are referenced, never rendered.
func Render(root, overlay string) (*Rendered, error) {
	dir := filepath.Join(root, "deploy", "kubernetes", "overlays", overlay)
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resources, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build %s: %w", dir, err)
	}
	r := &Rendered{
		Overlay:         overlay,
		Deployments:     map[string]*appsv1.Deployment{},
		StatefulSets:    map[string]*appsv1.StatefulSet{},
		Services:        map[string]*corev1.Service{},
		ConfigMaps:      map[string]*corev1.ConfigMap{},
		ServiceAccounts: map[string]*corev1.ServiceAccount{},
		Objects:         map[string]int{},
	}
	for _, res := range resources.Resources() {
		data, err := res.AsYAML()
		if err != nil {
			return nil, err
		}
		gvk := res.GetApiVersion() + "/" + res.GetKind()
		r.Objects[gvk]++
		id := fmt.Sprintf("%s %s", gvk, res.GetName())
		if err := r.add(gvk, data); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", overlay, id, err)
		}
	}
	return r, nil
}

// strict decodes YAML into obj, refusing unknown and duplicate fields.
func strict(data []byte, obj any) error {
	return yaml.UnmarshalStrict(data, obj)
}

func (r *Rendered) add(gvk string, data []byte) error {
	switch gvk {
	case "v1/Namespace":
		o := &corev1.Namespace{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.Namespaces = append(r.Namespaces, o)
	case "apps/v1/Deployment":
		o := &appsv1.Deployment{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.Deployments[o.Name] = o
	case "apps/v1/StatefulSet":
		o := &appsv1.StatefulSet{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.StatefulSets[o.Name] = o
	case "v1/Service":
		o := &corev1.Service{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.Services[o.Name] = o
	case "v1/ConfigMap":
		o := &corev1.ConfigMap{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.ConfigMaps[o.Name] = o
	case "v1/ServiceAccount":
		o := &corev1.ServiceAccount{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.ServiceAccounts[o.Name] = o
	case "policy/v1/PodDisruptionBudget":
		o := &policyv1.PodDisruptionBudget{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.PDBs = append(r.PDBs, o)
	case "autoscaling/v2/HorizontalPodAutoscaler":
		o := &autoscalingv2.HorizontalPodAutoscaler{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.HPAs = append(r.HPAs, o)
	case "networking.k8s.io/v1/NetworkPolicy":
		o := &networkingv1.NetworkPolicy{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.NetworkPolicies = append(r.NetworkPolicies, o)
	case "networking.k8s.io/v1/Ingress":
		o := &networkingv1.Ingress{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.Ingresses = append(r.Ingresses, o)
	case "postgresql.cnpg.io/v1/Cluster":
		o := &Cluster{}
		if err := strict(data, o); err != nil {
			return err
		}
		r.Clusters = append(r.Clusters, o)
	case "v1/Secret":
		return fmt.Errorf("a Secret is rendered: secrets must be referenced (secretKeyRef), never written in the manifests")
	default:
		return fmt.Errorf("kind %s is not one the validator decodes: add it to Rendered.add with its typed struct", gvk)
	}
	return nil
}
