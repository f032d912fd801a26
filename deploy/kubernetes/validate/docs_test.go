package validate

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// TestSecretsDocumented: every Secret the manifests reference (name and key, from variables
// and from volumes), and the Ingress's TLS Secret, is documented in docs/deployment.md for the operator to create.
func TestSecretsDocumented(t *testing.T) {
	f := load(t)
	doc, err := os.ReadFile(filepath.Join(f.root, "docs", "deployment.md"))
	if err != nil {
		t.Fatal(err)
	}
	refs := map[string]bool{}
	for _, r := range f.overlays {
		var pods []corev1.PodSpec
		for _, d := range r.Deployments {
			pods = append(pods, d.Spec.Template.Spec)
		}
		for _, s := range r.StatefulSets {
			pods = append(pods, s.Spec.Template.Spec)
		}
		for _, pod := range pods {
			for _, c := range pod.Containers {
				for _, e := range c.Env {
					if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
						refs[e.ValueFrom.SecretKeyRef.Name+"\x00"+e.ValueFrom.SecretKeyRef.Key] = true
					}
				}
			}
			// Secrets mounted as files (the NATS credentials and certificates).
			for _, v := range pod.Volumes {
				switch {
				case v.Secret != nil:
					refs[v.Secret.SecretName+"\x00"] = true
				case v.Projected != nil:
					for _, src := range v.Projected.Sources {
						if src.Secret == nil {
							continue
						}
						for _, it := range src.Secret.Items {
							refs[src.Secret.Name+"\x00"+it.Key] = true
						}
					}
				}
			}
		}
		for _, ing := range r.Ingresses {
			for _, tls := range ing.Spec.TLS {
				refs[tls.SecretName+"\x00"] = true
			}
		}
	}
	var names []string
	for ref := range refs {
		name, key, _ := strings.Cut(ref, "\x00")
		names = append(names, name+"/"+key)
		if !strings.Contains(string(doc), "`"+name+"`") {
			t.Errorf("docs/deployment.md does not name the Secret `%s`", name)
		}
		if key != "" && !strings.Contains(string(doc), "`"+key+"`") {
			t.Errorf("docs/deployment.md does not name the key `%s` of Secret %s", key, name)
		}
	}
	sort.Strings(names)
	t.Logf("secrets referenced: %v", names)
}

var (
	sqlBlockRE = regexp.MustCompile("(?s)```sql\n(.*?)```")
	createRE   = regexp.MustCompile(`(?i)CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)"?`)
)

// TestRunbookTables: every <schema>.<table> in docs/operations.md's ```sql blocks is a table
// that schema's migrations create (the outbox is the platform's, in every schema). A service
// whose migrations create no table yet is reported, not failed.
func TestRunbookTables(t *testing.T) {
	f := load(t)
	doc, err := os.ReadFile(filepath.Join(f.root, "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	// A schema per process that reads DATABASE_URL (not the BFF, not cashout).
	tables := map[string]map[string]bool{}
	for _, b := range binaries {
		if _, ok := f.configs[b].Var("DATABASE_URL"); !ok {
			continue
		}
		tables[b] = map[string]bool{}
	}
	addFrom := func(dir string, schemas ...string) {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") || !strings.Contains(p, "migrations") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			for _, m := range createRE.FindAllStringSubmatch(string(data), -1) {
				for _, s := range schemas {
					tables[s][strings.ToLower(m[1])] = true
				}
			}
			return nil
		})
	}
	var all []string
	for s := range tables {
		all = append(all, s)
		addFrom(filepath.Join(f.root, "services", s), s)
	}
	ownTables := map[string]int{}
	for s, ts := range tables {
		ownTables[s] = len(ts)
	}
	addFrom(filepath.Join(f.root, "services", "platform", "outbox"), all...)

	refRE := regexp.MustCompile(`(?:^|[^.\w])(` + strings.Join(all, "|") + `)\.([a-z_][a-z0-9_]*)\b`)
	seen := 0
	for _, block := range sqlBlockRE.FindAllStringSubmatch(string(doc), -1) {
		for _, m := range refRE.FindAllStringSubmatch(block[1], -1) {
			schema, table := m[1], m[2]
			seen++
			if tables[schema][table] {
				continue
			}
			if ownTables[schema] == 0 && table != "outbox" {
				t.Logf("note: %s.%s: the %s migrations create no table yet", schema, table, schema)
				continue
			}
			t.Errorf("docs/operations.md uses %s.%s, which no %s migration creates", schema, table, schema)
		}
	}
	if seen == 0 {
		t.Errorf("docs/operations.md has no SQL against the services' tables")
	}
}
