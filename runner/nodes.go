package runner

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lnbench/lnbench/backend"
	"github.com/lnbench/lnbench/node"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/record"
	"github.com/lnbench/lnbench/scenario"
)

// NodeBuild is what the run knows of one node spec's build.
type NodeBuild struct {
	Manifest nodebuild.Manifest
	Image    string // compose: the node image the spec's nodes run
}

// NodeSetup resolves every node spec of the scenario (compared or pinned by
// a topology node) into how its nodes start and what the report says of
// it: the driver's flags, the profile's, then the scenario's own.
func NodeSetup(ds node.Drivers, s scenario.Scenario, builds map[string]NodeBuild) (map[string]backend.NodeConfig, []record.NodeInfo, error) {
	specs, err := s.AllSpecs()
	if err != nil {
		return nil, nil, err
	}
	configs := map[string]backend.NodeConfig{}
	var infos []record.NodeInfo
	for _, sp := range specs {
		drv, err := ds.Lookup(sp.Implementation())
		if err != nil {
			return nil, nil, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		profile := firstOf(sp.Profile, s.Node.Profile, drv.DefaultProfile, nodespec.ProfileDefault)
		db := firstOf(sp.DB, s.Node.DBBackend, nodespec.DBBbolt)
		p := node.Profile{DBBackend: db}
		if drv.Profile != nil {
			if p, err = drv.Profile(profile, db, sp.Version()); err != nil {
				return nil, nil, fmt.Errorf("node spec %s: %w", sp.Label, err)
			}
		}
		fp, err := footprintOf(drv, sp.Footprint)
		if err != nil {
			return nil, nil, fmt.Errorf("node spec %s: %w", sp.Label, err)
		}
		args := append(append(append([]string(nil), p.Flags...), fp.Flags...), s.Node.Flags...)
		configs[sp.Label] = backend.NodeConfig{DBBackend: p.DBBackend, Args: args, Env: fp.Env}
		var flags []string
		if drv.Flags != nil {
			flags = drv.Flags(p.DBBackend)
		}
		info := record.NodeInfo{Label: sp.Label, Baseline: sp.Label == s.Baseline, Implementation: sp.Implementation(),
			Version: sp.Version(), Build: sp.Build, Key: s.BuildKeys[sp.Label], Profile: profile + "+" + reportedDB(sp.Implementation(), db, p),
			Flags: append(flags, args...), Env: fp.Env}
		if sp.Footprint != "" && sp.Footprint != nodespec.FootprintDefault {
			info.Profile += "+" + sp.Footprint
		}
		if b, ok := builds[sp.Label]; ok {
			m := b.Manifest
			// The build is keyed by content: a cached one may have been made
			// from another copy of the same tree, so the path is the spec's.
			info.Key, info.Source, info.Commit, info.Dirty = m.Key, sp.SourceDir(), m.GitCommit, m.GitDirty
			info.Revision, info.Subject = m.Revision, m.GitSubject
			info.GoVersion, info.Tags, info.PGOHash, info.Image = m.GoVersion, m.Tags, m.PGOSHA256, b.Image
			info.NodeVersion, info.Compiler = m.NodeVersion, m.Compiler
			if len(m.Configure) > 0 {
				info.BuildOptions = "./configure " + strings.Join(m.Configure, " ")
			}
		}
		infos = append(infos, info)
	}
	return configs, infos, nil
}

// footprintOf resolves a spec's footprint; "" and "default" are the
// implementation's own (nothing added).
func footprintOf(drv node.Driver, name string) (node.Footprint, error) {
	if name == "" || name == nodespec.FootprintDefault {
		return node.Footprint{}, nil
	}
	if drv.Footprint == nil {
		return node.Footprint{}, fmt.Errorf("footprint %q: this implementation has only the default", name)
	}
	return drv.Footprint(name)
}

func firstOf(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// withTopologyNodes records which topology nodes ran each spec.
func withTopologyNodes(infos []record.NodeInfo, plans []networkPlan) []record.NodeInfo {
	for _, p := range plans {
		for _, c := range p.cases {
			for _, n := range c.topo.Nodes {
				for i := range infos {
					if infos[i].Label == n.Spec && !slices.Contains(infos[i].Nodes, n.Name) {
						infos[i].Nodes = append(infos[i].Nodes, n.Name)
					}
				}
			}
		}
	}
	return infos
}

// reportedDB is the database a spec's nodes run on as the report names
// it: the scenario's variant for LND, the driver's one database for CLN
// (sqlite3, whatever node.db_backend says).
func reportedDB(impl, db string, p node.Profile) string {
	if impl == "cln" {
		return p.DBBackend
	}
	return db
}
