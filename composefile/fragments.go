package composefile

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnbench/lnbench/backend"
	fragments "github.com/lnbench/lnbench/docker-fragments"
	"github.com/lnbench/lnbench/usage"
)

// Fragment roles are the actor roles of package usage with the node role
// split by implementation: usage.RoleChain, RoleLND, RoleCLN and
// usage.RoleSampler.
const (
	RoleLND = "lnd"
	RoleCLN = "cln"
)

// FragmentFiles maps a fragment role to its file in docker-fragments/.
var FragmentFiles = map[string]string{
	usage.RoleChain:   "chain.yml",
	RoleLND:           "actor-lnd.yml",
	RoleCLN:           "actor-cln.yml",
	usage.RoleSampler: "sampler.yml",
}

// Fragment is one role's service template.
type Fragment struct {
	Role    string
	File    string
	Name    string // the service key in the fragment (btcd, lnd, sampler)
	Service Service
	// Published are the container ports published on 127.0.0.1 with a
	// host port chosen by Docker, in file order.
	Published []int
}

// Fragments are the loaded templates of every role.
type Fragments map[string]Fragment

// publishRe is the only ports form allowed: loopback, Docker-chosen host
// port, one container port.
var publishRe = regexp.MustCompile(`^127\.0\.0\.1::([0-9]{1,5})$`)

// LoadFragments reads every role's fragment from fsys (nil: the embedded
// docker-fragments) and validates it.
// LoadFragmentsDir loads the fragments from dir ("" = the built-in ones).
func LoadFragmentsDir(dir string) (Fragments, error) {
	if dir == "" {
		return LoadFragments(nil)
	}
	return LoadFragments(os.DirFS(dir))
}

func LoadFragments(fsys fs.FS) (Fragments, error) {
	if fsys == nil {
		fsys = fragments.FS
	}
	out := Fragments{}
	roles := make([]string, 0, len(FragmentFiles))
	for r := range FragmentFiles {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	for _, role := range roles {
		file := FragmentFiles[role]
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, fmt.Errorf("fragment %s: %v", file, err)
		}
		f, err := ParseFragment(role, file, data)
		if err != nil {
			return nil, err
		}
		out[role] = f
	}
	return out, nil
}

// ParseFragment decodes one fragment strictly: exactly one service under
// `services:`, only keys that Service knows, none of the keys the generator
// owns, and ports only in the loopback form "127.0.0.1::PORT".
func ParseFragment(role, file string, data []byte) (Fragment, error) {
	var doc struct {
		Services map[string]Service `yaml:"services"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return Fragment{}, fmt.Errorf("fragment %s: %v", file, err)
	}
	if len(doc.Services) != 1 {
		return Fragment{}, fmt.Errorf("fragment %s: want exactly one service under services:, found %d", file, len(doc.Services))
	}
	var name string
	var svc Service
	for name, svc = range doc.Services {
	}
	owned := []struct {
		key string
		set bool
	}{
		{"command", len(svc.Command) > 0}, {"cpus", svc.CPUs != 0}, {"cpuset", svc.CPUSet != ""}, {"depends_on", len(svc.DependsOn) > 0},
		{"deploy", svc.Deploy != nil}, {"configs", len(svc.Configs) > 0}, {"secrets", len(svc.Secrets) > 0},
		{"hostname", svc.Hostname != ""}, {"image", svc.Image != ""}, {"mem_limit", svc.MemLimit != ""},
		{"networks", len(svc.Networks) > 0}, {"user", svc.User != ""}, {"volumes", len(svc.Volumes) > 0},
	}
	for _, o := range owned {
		if o.set {
			return Fragment{}, fmt.Errorf("fragment %s: service %s sets %s, which the generator writes; remove it", file, name, o.key)
		}
	}
	if len(svc.Entrypoint) == 0 {
		return Fragment{}, fmt.Errorf("fragment %s: service %s needs an entrypoint", file, name)
	}
	if _, ok := svc.Labels[backend.Label]; ok {
		return Fragment{}, fmt.Errorf("fragment %s: service %s sets the label %s, which the generator writes per run; remove it", file, name, backend.Label)
	}
	f := Fragment{Role: role, File: file, Name: name, Service: svc}
	for _, p := range svc.Ports {
		m := publishRe.FindStringSubmatch(p.Short)
		if m == nil {
			return Fragment{}, fmt.Errorf("fragment %s: service %s port %q: publish only on loopback with a Docker-chosen host port, as \"127.0.0.1::PORT\"", file, name, p.Short)
		}
		port, _ := strconv.Atoi(m[1])
		if port < 1 || port > 65535 {
			return Fragment{}, fmt.Errorf("fragment %s: service %s port %q is out of range", file, name, p.Short)
		}
		f.Published = append(f.Published, port)
	}
	return f, nil
}

// publishes reports whether the fragment publishes a container port.
func (f Fragment) publishes(port int) bool {
	for _, p := range f.Published {
		if p == port {
			return true
		}
	}
	return false
}

func (f Fragment) String() string {
	return fmt.Sprintf("%s (%s: service %s, publishes %s)", f.Role, f.File, f.Name, strings.Trim(fmt.Sprint(f.Published), "[]"))
}
