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
	// Configs and Secrets are swarm objects made by `docker stack deploy`
	// from files (stack files only).
	Configs  map[string]FileObject `yaml:"configs,omitempty"`
	Networks map[string]Network    `yaml:"networks,omitempty"`
	Secrets  map[string]FileObject `yaml:"secrets,omitempty"`
	Services map[string]Service    `yaml:"services"`
	// Version is set in stack files only ("3.8"): compose files stay in the
	// Compose Specification without it.
	Version Quoted            `yaml:"version,omitempty"`
	Volumes map[string]Volume `yaml:"volumes,omitempty"`
}

// Network is a top-level network.
type Network struct {
	Attachable bool              `yaml:"attachable,omitempty"`
	Driver     string            `yaml:"driver,omitempty"`
	Labels     map[string]string `yaml:"labels,omitempty"`
}

// FileObject is a top-level config or secret read from a file.
type FileObject struct {
	File   string            `yaml:"file"`
	Labels map[string]string `yaml:"labels,omitempty"`
}

// FileRef mounts a config or secret into a service's container.
type FileRef struct {
	Source string `yaml:"source"`
	Target string `yaml:"target"`
}

// Deploy is a stack service's swarm settings.
type Deploy struct {
	EndpointMode  string            `yaml:"endpoint_mode,omitempty"`
	Labels        map[string]string `yaml:"labels,omitempty"`
	Placement     *Placement        `yaml:"placement,omitempty"`
	Resources     *Resources        `yaml:"resources,omitempty"`
	RestartPolicy *RestartPolicy    `yaml:"restart_policy,omitempty"`
}

// Placement constrains where a task runs.
type Placement struct {
	Constraints []string `yaml:"constraints"`
}

// Resources hold a stack service's limits.
type Resources struct {
	Limits ResourceLimits `yaml:"limits"`
}

// ResourceLimits are compose format 3's limits (cpus is a string there).
type ResourceLimits struct {
	CPUs   Quoted `yaml:"cpus,omitempty"`
	Memory Quoted `yaml:"memory,omitempty"`
}

// RestartPolicy says whether swarm restarts a task that ended.
type RestartPolicy struct {
	Condition string `yaml:"condition"`
}

// Volume is a top-level named volume (stack files only: compose node data
// are bind mounts); it carries the run label, by which every engine is swept.
type Volume struct {
	Labels map[string]string `yaml:"labels,omitempty"`
}

// Service is one container of the file; also the shape of a fragment.
type Service struct {
	CapDrop         []string              `yaml:"cap_drop,omitempty"`
	Command         []string              `yaml:"command,omitempty"`
	Configs         []FileRef             `yaml:"configs,omitempty"`
	CPUs            float64               `yaml:"cpus,omitempty"`
	CPUSet          string                `yaml:"cpuset,omitempty"`
	Deploy          *Deploy               `yaml:"deploy,omitempty"`
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
	Ports           []Port                `yaml:"ports,omitempty"`
	ReadOnly        bool                  `yaml:"read_only,omitempty"`
	Secrets         []FileRef             `yaml:"secrets,omitempty"`
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
	Source   string `yaml:"source,omitempty"` // none for tmpfs
	Target   string `yaml:"target"`
	Type     string `yaml:"type"`
}

// Port is one published port: the short form "127.0.0.1::10009" (compose
// files, fragments), or the long form (stack files: swarm's host mode).
type Port struct {
	Short string
	Long  PortLong
}

// PortLong is the long syntax of a published port.
type PortLong struct {
	Mode      string `yaml:"mode,omitempty"`
	Protocol  string `yaml:"protocol,omitempty"`
	Published int    `yaml:"published,omitempty"`
	Target    int    `yaml:"target"`
}

// MarshalYAML writes the short form double-quoted, else the long form.
func (p Port) MarshalYAML() (any, error) {
	if p.Short != "" {
		return Quoted(p.Short).MarshalYAML()
	}
	return p.Long, nil
}

// UnmarshalYAML reads either form.
func (p *Port) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		p.Short = n.Value
		return nil
	}
	return n.Decode(&p.Long)
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
	c.Ports = append([]Port(nil), s.Ports...)
	c.Configs = append([]FileRef(nil), s.Configs...)
	c.Secrets = append([]FileRef(nil), s.Secrets...)
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
	if s.Deploy != nil {
		d := *s.Deploy
		d.Labels = cloneMap(d.Labels)
		if d.Placement != nil {
			p := Placement{Constraints: append([]string(nil), d.Placement.Constraints...)}
			d.Placement = &p
		}
		c.Deploy = &d
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
