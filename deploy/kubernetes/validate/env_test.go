package validate

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// envSource is where a container's variable comes from.
type envSource struct {
	Kind     string // value, configMap, secret, field, resource
	Value    string // for value and configMap
	Name     string // the ConfigMap's or Secret's name
	Key      string // the Secret's key
	Optional bool
	Shared   bool // from a ConfigMap that several Deployments read
}

func (s envSource) String() string {
	switch s.Kind {
	case "configMap":
		return fmt.Sprintf("ConfigMap %s (%q)", s.Name, s.Value)
	case "secret":
		return fmt.Sprintf("Secret %s key %s", s.Name, s.Key)
	case "value":
		return fmt.Sprintf("value %q", s.Value)
	}
	return s.Kind
}

// sharedConfigMaps lists the ConfigMaps that more than one Deployment reads with envFrom.
func sharedConfigMaps(r *Rendered) map[string]bool {
	count := map[string]int{}
	for _, d := range r.Deployments {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, ef := range c.EnvFrom {
				if ef.ConfigMapRef != nil {
					count[ef.ConfigMapRef.Name]++
				}
			}
		}
	}
	out := map[string]bool{}
	for n, c := range count {
		if c > 1 {
			out[n] = true
		}
	}
	return out
}

// effectiveEnv resolves a container's environment as the kubelet builds it: envFrom in order,
// then env, later entries winning. A ConfigMap must exist in the render unless optional;
// envFrom secretRef is refused, because its keys cannot be checked.
func effectiveEnv(r *Rendered, c corev1.Container) (map[string]envSource, error) {
	shared := sharedConfigMaps(r)
	env := map[string]envSource{}
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			cm, ok := r.ConfigMaps[ef.ConfigMapRef.Name]
			if !ok {
				if ef.ConfigMapRef.Optional != nil && *ef.ConfigMapRef.Optional {
					continue
				}
				return nil, fmt.Errorf("envFrom ConfigMap %s is not in the render", ef.ConfigMapRef.Name)
			}
			for k, v := range cm.Data {
				env[ef.Prefix+k] = envSource{Kind: "configMap", Value: v, Name: cm.Name, Shared: shared[cm.Name]}
			}
		case ef.SecretRef != nil:
			return nil, fmt.Errorf("envFrom secretRef %s: reference each secret variable with secretKeyRef so that its key is checked and documented", ef.SecretRef.Name)
		}
	}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = envSource{Kind: "value", Value: e.Value}
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			env[e.Name] = envSource{Kind: "secret", Name: ref.Name, Key: ref.Key, Optional: ref.Optional != nil && *ref.Optional}
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref := e.ValueFrom.ConfigMapKeyRef
			cm, ok := r.ConfigMaps[ref.Name]
			if !ok {
				return nil, fmt.Errorf("%s: ConfigMap %s is not in the render", e.Name, ref.Name)
			}
			v, ok := cm.Data[ref.Key]
			if !ok && (ref.Optional == nil || !*ref.Optional) {
				return nil, fmt.Errorf("%s: ConfigMap %s has no key %s", e.Name, ref.Name, ref.Key)
			}
			env[e.Name] = envSource{Kind: "configMap", Value: v, Name: cm.Name}
		case e.ValueFrom.FieldRef != nil:
			env[e.Name] = envSource{Kind: "field"}
		case e.ValueFrom.ResourceFieldRef != nil:
			env[e.Name] = envSource{Kind: "resource"}
		}
	}
	return env, nil
}

// value is a variable's literal value ("" for secrets and references).
func value(env map[string]envSource, name string) string {
	s := env[name]
	if s.Kind == "value" || s.Kind == "configMap" {
		return s.Value
	}
	return ""
}
