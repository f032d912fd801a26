package validate

import (
	"path"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestNATSAuthorization: NATS admits only the services, each with its own NKey and over TLS
// (docs/security-nats.md). The servers' nats.conf requires TLS on client and route ports and
// includes the generated auth.conf (the bus package's test keeps it equal to the permission
// table); every public key auth.conf names comes from a Secret in the servers' environment;
// every binary that reads NATS_URL has a user there, reads its seed (NATS_NKEY_SEED_FILE) from
// its own Secret <binary>-nats and no other's, and trusts the CA from Secret nats-ca
// (NATS_CA_FILE).
func TestNATSAuthorization(t *testing.T) {
	forOverlays(t, func(t *testing.T, f *fixture, r *Rendered) {
		var conf, auth string
		for _, cm := range r.ConfigMaps {
			if c, ok := cm.Data["auth.conf"]; ok {
				conf, auth = cm.Data["nats.conf"], c
			}
		}
		if conf == "" || auth == "" {
			t.Fatal("no ConfigMap holds nats.conf with auth.conf")
		}
		if !strings.Contains(conf, "include ./auth.conf") {
			t.Error("nats.conf does not include auth.conf: NATS would admit anyone")
		}
		tlsBlocks := regexp.MustCompile(`(?m)^\s*tls\s*\{`).FindAllStringIndex(conf, -1)
		if len(tlsBlocks) < 2 {
			t.Errorf("nats.conf has %d tls blocks, want one for clients and one for the routes", len(tlsBlocks))
		}
		if !regexp.MustCompile(`(?s)cluster\s*\{.*tls\s*\{[^}]*verify:\s*true`).MatchString(conf) {
			t.Error("the routes' TLS does not verify the other servers' certificates")
		}
		users := map[string]bool{}
		for _, m := range regexp.MustCompile(`nkey:\s*\$NATS_NKEY_([A-Z0-9_]+)`).FindAllStringSubmatch(auth, -1) {
			users[strings.ToLower(m[1])] = true
		}
		if regexp.MustCompile(`nkey:\s*U`).MatchString(auth) {
			t.Error("auth.conf names a literal public key: keys are per environment, from the servers' environment")
		}
		if strings.Contains(auth, "no_auth_user") {
			t.Error("auth.conf lets clients without credentials in (no_auth_user)")
		}

		sts, ok := r.StatefulSets["nats"]
		if !ok {
			t.Fatal("no nats StatefulSet")
		}
		serverEnv, err := effectiveEnv(r, sts.Spec.Template.Spec.Containers[0])
		if err != nil {
			t.Fatal(err)
		}
		for u := range users {
			v := "NATS_NKEY_" + strings.ToUpper(u)
			if src, ok := serverEnv[v]; !ok || src.Kind != "secret" || src.Optional {
				t.Errorf("auth.conf reads %s, but the nats StatefulSet does not set it from a Secret (%v)", v, src)
			}
			// The streams administrator (natsauth streams) runs from the deploy pipeline, not in
			// the cluster: its seed is never a Secret here.
			if _, ok := r.Deployments[u]; !ok && u != streamsAdministrator {
				t.Errorf("auth.conf has a user %s, but there is no such Deployment", u)
			}
		}
		if !mountsSecret(sts.Spec.Template.Spec, sts.Spec.Template.Spec.Containers[0], "nats-tls", "/etc/nats-tls") {
			t.Error("the nats StatefulSet does not mount Secret nats-tls at /etc/nats-tls")
		}

		for _, b := range binaries {
			d, ok := r.Deployments[b]
			if !ok {
				continue
			}
			cfg := f.configs[b]
			if _, reads := cfg.Var("NATS_URL"); !reads {
				if users[b] {
					t.Errorf("%s does not use NATS, yet auth.conf gives it a user", b)
				}
				continue
			}
			if !users[b] {
				t.Errorf("%s reads NATS_URL but has no user in auth.conf", b)
			}
			pod := d.Spec.Template.Spec
			c := pod.Containers[0]
			env, err := effectiveEnv(r, c)
			if err != nil {
				t.Fatal(err)
			}
			seed, ca := value(env, "NATS_NKEY_SEED_FILE"), value(env, "NATS_CA_FILE")
			if seed == "" || ca == "" {
				t.Errorf("%s: NATS_NKEY_SEED_FILE=%q NATS_CA_FILE=%q: both are needed (credentials and TLS)", b, seed, ca)
				continue
			}
			if got := fileSecret(pod, c, seed); got != b+"-nats" {
				t.Errorf("%s: NATS_NKEY_SEED_FILE %s comes from Secret %q, want its own %s-nats", b, seed, got, b)
			}
			if got := fileSecret(pod, c, ca); got != "nats-ca" {
				t.Errorf("%s: NATS_CA_FILE %s comes from Secret %q, want nats-ca", b, ca, got)
			}
			for _, v := range pod.Volumes {
				for _, name := range volumeSecrets(v) {
					if strings.HasSuffix(name, "-nats") && name != b+"-nats" {
						t.Errorf("%s mounts Secret %s: another process's NATS credentials", b, name)
					}
				}
			}
		}
	})
}

// volumeSecrets lists the Secrets a volume projects.
func volumeSecrets(v corev1.Volume) []string {
	var out []string
	if v.Secret != nil {
		out = append(out, v.Secret.SecretName)
	}
	if v.Projected != nil {
		for _, s := range v.Projected.Sources {
			if s.Secret != nil {
				out = append(out, s.Secret.Name)
			}
		}
	}
	return out
}

// fileSecret returns the Secret the file at p comes from in container c (through a secret or
// projected volume mounted at p's folder), "" when none.
func fileSecret(pod corev1.PodSpec, c corev1.Container, p string) string {
	dir, file := path.Split(p)
	dir = strings.TrimSuffix(dir, "/")
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir || m.SubPath != "" {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != m.Name {
				continue
			}
			if v.Secret != nil {
				for _, it := range v.Secret.Items {
					if it.Path == file {
						return v.Secret.SecretName
					}
				}
				if len(v.Secret.Items) == 0 {
					return v.Secret.SecretName
				}
			}
			if v.Projected != nil {
				for _, s := range v.Projected.Sources {
					if s.Secret == nil {
						continue
					}
					for _, it := range s.Secret.Items {
						if it.Path == file {
							return s.Secret.Name
						}
					}
				}
			}
		}
	}
	return ""
}

// mountsSecret: container c mounts Secret name at dir.
func mountsSecret(pod corev1.PodSpec, c corev1.Container, name, dir string) bool {
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.Secret != nil && v.Secret.SecretName == name {
				return true
			}
		}
	}
	return false
}

// streamsAdministrator is the NATS user that alone changes the streams
// (services/platform/bus.IdentityStreams).
const streamsAdministrator = "streams"
