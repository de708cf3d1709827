package cli

import (
	"fmt"

	"github.com/lnbench/lnbench/backend/driver"
	"github.com/lnbench/lnbench/nodebuild"
	"github.com/lnbench/lnbench/nodespec"
	"github.com/lnbench/lnbench/scenario"
)

// refuseDatabases refuses, before anything is built, a db=postgres node on
// a backend that starts no PostgreSQL server. (A snapshot keeps the
// server's databases as dumps: backend.DatabaseKeeper.)
// It says whether a node runs on PostgreSQL.
func refuseDatabases(s scenario.Scenario, be driver.Driver) (postgres bool, err error) {
	specs, err := s.AllSpecs()
	if err != nil {
		return false, err
	}
	for _, sp := range specs {
		db := sp.DB
		if db == "" {
			db = s.Node.DBBackend
		}
		if !nodespec.OnPostgres(db) {
			continue
		}
		if !be.Caps().Postgres {
			return false, fmt.Errorf("node spec %s: db=%s nodes do not run on the %s backend yet; %s", sp.Label, db, be.Name(), driver.UseOneOf(func(c driver.Caps) bool { return c.Postgres }))
		}
		postgres = true
	}
	return postgres, nil
}

// postgresPackages is what db=postgres needs on a machine that runs the
// server itself (the local backend): Debian's server programs.
var postgresPackages = nodebuild.DebianPackages{For: "db=postgres", Name: "PostgreSQL's server", List: []string{"postgresql"},
	Unchecked: "the run looks for its programs under /usr/lib/postgresql"}
