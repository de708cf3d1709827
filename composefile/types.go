package composefile

import "gopkg.in/yaml.v3"

// Why our own structs and not github.com/compose-spec/compose-go/v2/types:
// compose-go's types marshal to YAML that docker-compose v1 (1.29.2, the one
// on our machines) rejects: Project always emits a top-level `name:` ("'name'
// does not match any of the regexes") and ports in the long syntax with
// `host_ip` ("ports contains unsupported option: 'host_ip'"), which we need
// for loopback-only publishing. Fixing that would mean editing its output as
// text. It would also pull a large dependency tree (and a second YAML
// library) into the module for a file of a dozen keys. These structs cover
// exactly the keys we write, in a syntax both v1 and v2 accept (the Compose
// Specification without `version:`), and gopkg.in/yaml.v3 marshals them.
//
// Determinism: yaml.v3 writes struct fields in declaration order and map
// keys sorted, so fields below are declared in alphabetical order of their
// YAML keys and every collection keyed by name is a map.

// File is a whole compose file.
type File struct {
	Networks map[string]Network `yaml:"networks,omitempty"`
	Services map[string]Service `yaml:"services"`
	Volumes  map[string]Volume  `yaml:"volumes,omitempty"`
}

// Network is a top-level network.
type Network struct {
	Labels map[string]string `yaml:"labels,omitempty"`
}

// Volume is a top-level named volume (none today: node data are bind
// mounts; any volume would carry the run label too).
type Volume struct {
	Labels map[string]string `yaml:"labels,omitempty"`
}

// Service is one container of the file; also the shape of a fragment.
type Service struct {
	CapDrop         []string              `yaml:"cap_drop,omitempty"`
	Command         []string              `yaml:"command,omitempty"`
	CPUs            float64               `yaml:"cpus,omitempty"`
	DependsOn       map[string]Dependency `yaml:"depends_on,omitempty"`
	Entrypoint      []string              `yaml:"entrypoint,omitempty"`
	Environment     map[string]string     `yaml:"environment,omitempty"`
	Expose          []Quoted              `yaml:"expose,omitempty"`
	Healthcheck     *Healthcheck          `yaml:"healthcheck,omitempty"`
	Hostname        string                `yaml:"hostname,omitempty"`
	Image           string                `yaml:"image,omitempty"`
	Init            bool                  `yaml:"init,omitempty"`
	Labels          map[string]string     `yaml:"labels,omitempty"`
	MemLimit        Quoted                `yaml:"mem_limit,omitempty"`
	Networks        []string              `yaml:"networks,omitempty"`
	Ports           []Quoted              `yaml:"ports,omitempty"`
	ReadOnly        bool                  `yaml:"read_only,omitempty"`
	SecurityOpt     []string              `yaml:"security_opt,omitempty"`
	StopGracePeriod string                `yaml:"stop_grace_period,omitempty"`
	Tmpfs           []string              `yaml:"tmpfs,omitempty"`
	User            Quoted                `yaml:"user,omitempty"`
	Volumes         []Mount               `yaml:"volumes,omitempty"`
	WorkingDir      string                `yaml:"working_dir,omitempty"`
}

// Dependency is the long form of depends_on.
type Dependency struct {
	Condition string `yaml:"condition"`
}

// Healthcheck is a service's health test.
type Healthcheck struct {
	Interval string   `yaml:"interval,omitempty"`
	Retries  int      `yaml:"retries,omitempty"`
	Test     []string `yaml:"test"`
	Timeout  string   `yaml:"timeout,omitempty"`
}

// Mount is a volume entry in the long syntax.
type Mount struct {
	ReadOnly bool   `yaml:"read_only,omitempty"`
	Source   string `yaml:"source"`
	Target   string `yaml:"target"`
	Type     string `yaml:"type"`
}

// Quoted is a string always written double-quoted: docker-compose v1 reads
// YAML 1.1, where an unquoted 1000:1000 is a base-60 integer.
type Quoted string

// MarshalYAML writes the string double-quoted.
func (q Quoted) MarshalYAML() (any, error) {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: string(q)}, nil
}

func (s Service) clone() Service {
	c := s
	c.Command = append([]string(nil), s.Command...)
	c.Entrypoint = append([]string(nil), s.Entrypoint...)
	c.Expose = append([]Quoted(nil), s.Expose...)
	c.Ports = append([]Quoted(nil), s.Ports...)
	c.Networks = append([]string(nil), s.Networks...)
	c.Volumes = append([]Mount(nil), s.Volumes...)
	c.Environment = cloneMap(s.Environment)
	c.Labels = cloneMap(s.Labels)
	if s.DependsOn != nil {
		c.DependsOn = map[string]Dependency{}
		for k, v := range s.DependsOn {
			c.DependsOn[k] = v
		}
	}
	if s.Healthcheck != nil {
		h := *s.Healthcheck
		h.Test = append([]string(nil), h.Test...)
		c.Healthcheck = &h
	}
	return c
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
