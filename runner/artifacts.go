package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lnbench/lnbench/network"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
	"github.com/lnbench/lnbench/topology"
)

type nodeRef = node.Node

var secretArg = regexp.MustCompile(`^(--(?:btcd\.|bitcoin-)?rpcpass(?:word)?=).*$`)

// dsnPassword is the password in a database URL (LND's
// --db.postgres.dsn, CLN's --wallet): postgres://user:PASSWORD@host.
var dsnPassword = regexp.MustCompile(`(postgres(?:ql)?://[^:@/]*:)[^@]*@`)

// redact removes secrets and run-local paths from recorded command lines.
func redact(args []string, workDir string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		a = secretArg.ReplaceAllString(a, "${1}<redacted>")
		a = dsnPassword.ReplaceAllString(a, "${1}<redacted>@")
		if workDir != "" {
			a = strings.ReplaceAll(a, workDir, "$RUN")
		}
		out[i] = a
	}
	return out
}

// writeNodeConfigs records each service's command line (secrets redacted).
func writeNodeConfigs(dir, workDir string, net *network.Network) {
	write := func(name string, args []string) {
		d := filepath.Join(dir, name)
		if os.MkdirAll(d, 0o755) != nil {
			return
		}
		_ = os.WriteFile(filepath.Join(d, "args.txt"), []byte(strings.Join(redact(args, workDir), "\n")+"\n"), 0o644)
	}
	write("btcd", net.ChainEP.Args)
	for name, ep := range net.Endpoints {
		write(name, ep.Args)
	}
}

// writeScenario records the scenario so `lnbench run <artifacts dir>` reruns
// the same setup; a topology file is copied beside it.
func writeScenario(dir string, s scenario.Scenario) error {
	recorded := false // a generated graph already written as topology.yml
	if s.Generated() {
		var err error
		if s, recorded, err = writeGenerated(dir, s); err != nil {
			return err
		}
	}
	if topology.IsFile(s.Topology) && !recorded {
		data, err := os.ReadFile(s.Topology)
		if err != nil {
			return fmt.Errorf("topology file: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, record.TopologyFile), data, 0o644); err != nil {
			return err
		}
		s.Topology = record.TopologyFile
	}
	return os.WriteFile(filepath.Join(dir, record.ScenarioFile), s.YAML(), 0o644)
}

// writeGenerated records each generated graph as a plain topology file.
// When every case runs on the same graph, the recorded scenario names that
// file instead of the generator, so a rerun needs no generator.
func writeGenerated(dir string, s scenario.Scenario) (scenario.Scenario, bool, error) {
	files := map[string]string{} // topology YAML → file name
	for _, c := range s.Cases() {
		topo, err := s.CaseGraph(c)
		if err != nil {
			return s, false, err
		}
		data, err := topo.YAML()
		if err != nil {
			return s, false, err
		}
		if _, ok := files[string(data)]; ok {
			continue
		}
		name := fmt.Sprintf("topology-%d.yml", len(files)+1)
		files[string(data)] = name
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return s, false, err
		}
	}
	if len(files) != 1 {
		return s, false, nil
	}
	if err := os.Rename(filepath.Join(dir, "topology-1.yml"), filepath.Join(dir, record.TopologyFile)); err != nil {
		return s, false, err
	}
	return s.WithoutGenerator(record.TopologyFile), true, nil
}
