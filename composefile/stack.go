package composefile

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/usage"
)

// A stack file is the compose file of the same network turned into what
// `docker stack deploy` runs on a Docker Swarm: compose format 3.8, every
// service pinned to one swarm node, reached by DNS round robin (service
// VIPs need the engines' iptables, which a swarm of engines may not have),
// never restarted (a dead node must fail the run, as in compose), limits as
// deploy resources, one attachable overlay network. Nothing is bind-mounted
// (the engines are other machines): node data live in named volumes on the
// engine that runs each task (labelled with the run, so the sweep removes
// them) and the harness copies tls.cert and admin.macaroon out through that
// engine. btcd's RPC certificate and key, made by the harness, reach the
// containers as a swarm config and a swarm secret. Published ports use
// swarm's host mode (on the engine that runs the task, host port chosen by
// Docker); swarm cannot bind them to one address, so the engines' hosts
// must keep them to the test network (docs/backends.md, "Real machines").
//
// The compose hardening is carried as far as `docker stack deploy` takes
// it (measured with CLI 28.2 against engine 20.10): cap_drop, read_only and
// init reach the service; tmpfs becomes a tmpfs mount (the `tmpfs:` key is
// dropped without a word); security_opt (no-new-privileges) is ignored by
// stack deploy, so it is left out.
//
// Profiling: the images carry lnbench (see imagebuild.EnsureTool), and one
// sampler service runs on each engine that hosts nodes, reaching the pprof
// endpoints of that engine's nodes over the overlay and writing windows to
// its own /artifacts volume, which the harness copies out at the end.

// StackVersion is the compose file format of stack files.
const StackVersion = "3.8"

// Names of the swarm objects holding btcd's RPC credentials.
const (
	ChainCertConfig = "btcd_rpc_cert"
	ChainKeySecret  = "btcd_rpc_key"
)

// Stack is what a stack file adds to a Spec.
type Stack struct {
	// Placement maps every service (btcd and each node) to the hostname of
	// the swarm node it must run on.
	Placement map[string]string
	// ChainCert and ChainKey are the host paths of btcd's RPC certificate
	// and key, read by `docker stack deploy`.
	ChainCert, ChainKey string
	// Services limits the file to these services (the ones started so
	// far); nil means all.
	Services []string
}

// StackName is a valid, short swarm stack name for a run's network:
// "lnb-<run id>" cut to fit, plus a hash of the network's name when given,
// so that "<stack>_<service>" stays within swarm's 63 characters.
func StackName(runID, network string) string {
	s := strings.Trim(projectBad.ReplaceAllString(strings.ToLower(runID), "-"), "-_")
	if len(s) > 32 {
		s = s[:32]
	}
	s = "lnb-" + s
	if network != "" {
		s += "-" + shortHash(network)
	}
	return s
}

func shortHash(s string) string {
	var h uint32 = 2166136261 // FNV-1a: stable and dependency-free
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return fmt.Sprintf("%08x", h)
}

// StackSpec checks what only stack files need.
func (s Spec) stackValidate(st Stack) error {
	if s.Tool != "" || s.Artifacts != "" {
		return fmt.Errorf("stack file: nothing is bind-mounted on swarm (the engines are other machines): lnbench comes in the images (imagebuild.EnsureTool), traces are copied out")
	}
	if s.Sampler {
		if err := s.checkSampler("stack file"); err != nil {
			return err
		}
	}
	if st.ChainCert == "" || st.ChainKey == "" {
		return fmt.Errorf("stack file: btcd's RPC certificate and key files are not set")
	}
	need := []string{ChainService}
	for _, n := range s.Nodes {
		need = append(need, n.Name)
	}
	for _, name := range need {
		if st.Placement[name] == "" {
			return fmt.Errorf("stack file: service %s has no swarm node to run on", name)
		}
	}
	return nil
}

// BuildStack assembles the stack file from the compose file of the same Spec.
func (s Spec) BuildStack(st Stack) (File, error) {
	if err := s.stackValidate(st); err != nil {
		return File{}, err
	}
	if s.User == "" {
		s.User = "0:0" // unused: stack services run as the image's user
	}
	samplers := s.Sampler
	s.Sampler = false // Build's sidecar reads host mounts; the stack has its own
	f, err := s.Build()
	if err != nil {
		return File{}, err
	}
	isSampler := map[string]bool{}
	if samplers {
		s.Sampler = true
		place := cloneMap(st.Placement)
		for _, sm := range StackSamplers(s, st) {
			if _, taken := f.Services[sm.Service]; taken {
				return File{}, fmt.Errorf("stack file: node %s has the name of engine %s's sampler service; rename the node", sm.Service, sm.Engine)
			}
			f.Services[sm.Service] = s.samplerService(sm)
			place[sm.Service] = sm.Engine
			isSampler[sm.Service] = true
		}
		st.Placement = place
	}
	runLabels := map[string]string{backend.Label: s.RunID}
	if s.Network != "" {
		runLabels[NetworkLabel] = s.Network
	}
	net := f.Networks[NetworkName]
	net.Driver, net.Attachable = "overlay", true
	f.Networks[NetworkName] = net
	f.Version = StackVersion
	f.Configs = map[string]FileObject{ChainCertConfig: {File: st.ChainCert, Labels: cloneMap(runLabels)}}
	f.Secrets = map[string]FileObject{ChainKeySecret: {File: st.ChainKey, Labels: cloneMap(runLabels)}}
	keep := map[string]bool{}
	for _, name := range st.Services {
		keep[name] = true
	}
	for name, svc := range f.Services {
		if st.Services != nil && !keep[name] {
			delete(f.Services, name)
			continue
		}
		d := &Deploy{
			EndpointMode:  "dnsrr",
			Labels:        cloneMap(runLabels),
			Placement:     &Placement{Constraints: []string{"node.hostname == " + st.Placement[name]}},
			RestartPolicy: &RestartPolicy{Condition: "none"},
		}
		if svc.CPUs != 0 || svc.MemLimit != "" {
			d.Resources = &Resources{Limits: ResourceLimits{Memory: svc.MemLimit}}
			if svc.CPUs != 0 {
				d.Resources.Limits.CPUs = Quoted(strconv.FormatFloat(svc.CPUs, 'f', -1, 64))
			}
		}
		svc.Deploy = d
		svc.CPUs, svc.MemLimit = 0, ""
		svc.DependsOn = nil // stack deploy ignores it; the harness orders starts
		svc.User = ""
		// Named volumes on the task's engine replace the bind mounts (/data,
		// and /artifacts where sample-loop.sh and the sampler write); the
		// tmpfs key becomes a mount, and security_opt, which stack deploy
		// ignores, goes.
		svc.Volumes = nil
		for _, m := range []struct{ vol, target string }{{"data", ContainerData}, {"artifacts", ContainerArtifacts}} {
			if m.vol == "artifacts" && name == ChainService {
				continue
			}
			if m.vol == "data" && isSampler[name] {
				continue
			}
			vol := name + "_" + m.vol
			if f.Volumes == nil {
				f.Volumes = map[string]Volume{}
			}
			f.Volumes[vol] = Volume{Labels: cloneMap(runLabels)}
			svc.Volumes = append(svc.Volumes, Mount{Type: "volume", Source: vol, Target: m.target})
		}
		for _, t := range svc.Tmpfs {
			svc.Volumes = append(svc.Volumes, Mount{Type: "tmpfs", Target: t})
		}
		svc.SecurityOpt, svc.Tmpfs = nil, nil
		var ports []Port
		for _, p := range svc.Ports {
			m := publishRe.FindStringSubmatch(p.Short)
			if m == nil {
				return File{}, fmt.Errorf("stack file: service %s port %q is not in the fragments' form", name, p.Short)
			}
			target, _ := strconv.Atoi(m[1])
			ports = append(ports, Port{Long: PortLong{Target: target, Mode: "host", Protocol: "tcp"}})
		}
		svc.Ports = ports
		switch {
		case name == ChainService:
			svc.Configs = []FileRef{{Source: ChainCertConfig, Target: path.Join(ContainerData, "rpc.cert")}}
			svc.Secrets = []FileRef{{Source: ChainKeySecret, Target: path.Join(ContainerData, "rpc.key")}}
		case isSampler[name]:
		default:
			svc.Configs = []FileRef{{Source: ChainCertConfig, Target: path.Join(ContainerChain, "rpc.cert")}}
		}
		f.Services[name] = svc
	}
	for vol := range f.Volumes {
		svc := strings.TrimSuffix(strings.TrimSuffix(vol, "_data"), "_artifacts")
		if _, ok := f.Services[svc]; !ok {
			delete(f.Volumes, vol)
		}
	}
	return f, nil
}

// StackSampler is the sampler service of one engine: it profiles the nodes
// placed there.
type StackSampler struct {
	Service, Engine string
	Targets         []string // node names, sorted
}

// StackSamplers lists one sampler per engine that hosts nodes, in engine
// order; none unless the spec has the sampler on.
func StackSamplers(s Spec, st Stack) []StackSampler {
	if !s.Sampler {
		return nil
	}
	by := map[string][]string{}
	for _, n := range s.Nodes {
		if e := st.Placement[n.Name]; e != "" {
			by[e] = append(by[e], n.Name)
		}
	}
	var out []StackSampler
	for e, names := range by {
		sort.Strings(names)
		out = append(out, StackSampler{Service: SamplerService + "-" + strings.Trim(projectBad.ReplaceAllString(strings.ToLower(e), "-"), "-_"), Engine: e, Targets: names})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Engine < out[j].Engine })
	return out
}

// samplerService is the sampler of one engine, from the sampler fragment:
// the run's image (with lnbench in it), the control port published on its
// engine, and one --target per node placed there.
func (s Spec) samplerService(sm StackSampler) Service {
	svc := s.Fragments[usage.RoleSampler].Service.clone()
	svc.Image = s.ChainImage
	svc.Hostname = sm.Service
	svc.Networks = []string{NetworkName}
	labels := cloneMap(svc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[backend.Label] = s.RunID
	if s.Network != "" {
		labels[NetworkLabel] = s.Network
	}
	svc.Labels = labels
	harden(&svc)
	svc.Command = append([]string{"--listen", fmt.Sprintf("0.0.0.0:%d", SamplerControlPort), "--out", ContainerArtifacts}, s.SamplerArgs...)
	for _, n := range sm.Targets {
		svc.Command = append(svc.Command, "--target", fmt.Sprintf("%s=http://%s:%d", n, n, LndPprofPort))
	}
	return svc
}

// GenerateStack renders the stack file: a header comment, then the YAML.
func GenerateStack(s Spec, st Stack) ([]byte, error) {
	f, err := s.BuildStack(st)
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range f.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	stack := StackName(s.RunID, s.Network)
	fmt.Fprintf(&buf, "# Stack file generated by lnbench for run %s", s.RunID)
	if s.Network != "" {
		fmt.Fprintf(&buf, ", network %s", s.Network)
	}
	fmt.Fprintf(&buf, " (services: %s).\n", strings.Join(names, ", "))
	fmt.Fprintf(&buf, "# By hand, against the swarm's manager: docker stack deploy --resolve-image never -c <this file> %s\n", stack)
	fmt.Fprintf(&buf, "# Clean up: lnbench down --backend swarm %s   (stack rm, then every engine swept by %s=%s)\n", s.RunID, backend.Label, s.RunID)
	return encode(&buf, f)
}
